import type { Services } from '../services.js';
import { CommitSignal } from './commit-signal.js';

/** The longest `wait` of a long-poll, in seconds: the idle timeout of common proxies. */
export const MAX_WAIT_SECONDS = 60;

/**
 * `GET /vault/changes?since=C&wait=N`: the feed as soon as it holds something for the caller —
 * a change it may see, or more to page through (`has_more`) — else, after `ms`, the feed as it
 * stands then (empty, its cursor possibly past commits that changed only what the caller
 * cannot see). The caller holds a lease, so the vault stays loaded and watched while it waits.
 * A long-poll the per-user cap or a shutdown closes answers at once with what it has.
 */
export async function waitForChanges<F extends { changes: unknown[]; has_more: boolean }>(
  services: Services,
  user: string,
  ms: number,
  read: () => Promise<F>,
): Promise<F> {
  // Listening before the first read: a commit landing between the read and the wait wakes it.
  const signal = new CommitSignal(services.vaults, user);
  const leave = services.live.open(user, () => signal.stop());
  const deadline = Date.now() + ms;
  try {
    for (;;) {
      const feed = await read();
      const left = deadline - Date.now();
      if (feed.changes.length > 0 || feed.has_more || signal.isStopped || left <= 0) return feed;
      await signal.next(left);
    }
  } finally {
    signal.stop();
    leave();
  }
}
