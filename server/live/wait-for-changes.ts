import type { QuireError } from '../../vault-store/errors.js';
import type { Services } from '../services.js';
import { CommitSignal } from './commit-signal.js';
import type { LiveCaller } from './live-connections.js';

/** The caller of a long-poll, as an operation's context holds it. */
export interface Poller extends LiveCaller {
  services: Services;
  /** Aborted when the client has gone: nobody waits for the answer any more. */
  signal?: AbortSignal;
}

/** The longest `wait` of a long-poll, in seconds: the idle timeout of common proxies. */
export const MAX_WAIT_SECONDS = 60;

/**
 * `GET /vault/changes?since=C&wait=N`: the feed as soon as it holds something for the caller —
 * a change it may see, or more to page through (`has_more`) — else, after `ms`, the feed as it
 * stands then (empty, its cursor possibly past commits that changed only what the caller
 * cannot see). The caller holds a lease, so the vault stays loaded and watched while it waits.
 * A long-poll the per-user cap or a shutdown closes answers at once with what it has; one
 * whose client left stops at once (its lease and its place under the cap are freed); one whose
 * credential was revoked fails with UNAUTHENTICATED.
 */
export async function waitForChanges<F extends { changes: unknown[]; has_more: boolean }>(
  caller: Poller,
  ms: number,
  read: () => Promise<F>,
): Promise<F> {
  const { services, user, signal: gone } = caller;
  // Listening before the first read: a commit landing between the read and the wait wakes it.
  const signal = new CommitSignal(services.vaults, user);
  const closed: { reason?: QuireError } = {};
  const leave = services.live.open(caller, (reason) => {
    closed.reason = reason;
    signal.stop();
  });
  const stop = () => signal.stop();
  gone?.addEventListener('abort', stop);
  if (gone?.aborted) stop();
  const deadline = Date.now() + ms;
  try {
    for (;;) {
      const feed = await read();
      if (closed.reason) throw closed.reason;
      const left = deadline - Date.now();
      if (feed.changes.length > 0 || feed.has_more || signal.isStopped || left <= 0) return feed;
      await signal.next(left);
    }
  } finally {
    gone?.removeEventListener('abort', stop);
    signal.stop();
    leave();
  }
}
