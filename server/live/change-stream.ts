import type { ServerResponse as Response } from 'node:http';
import { EventStream, type StreamTiming } from '../http/event-stream.js';
import { toQuireError } from '../http/errors.js';
import type { Services } from '../services.js';
import { CommitSignal } from './commit-signal.js';
import type { LiveCaller } from './live-connections.js';

/** What the stream sends: the change feed's pages (see `Workspace.changesSince`). */
interface Feed {
  cursor: string;
  has_more: boolean;
  changes: { commit: string }[];
}

/**
 * `GET /vault/events`: the change feed after `since`, pushed. A `ready` event (id: `since`)
 * opens it, then every commit with a change the caller may see is one `change` event whose id
 * is its commit (what the client sends back as `Last-Event-ID`), as it lands. Resolves when the
 * stream ends: the client left, its lifetime passed, the per-user cap or a shutdown closed it,
 * or the feed failed (history rewritten under `since`, the credential revoked: a `failed`
 * event with the error first). A feed that fails before the first byte (an unknown `since`)
 * throws: a JSON error.
 */
export async function streamChanges(
  res: Response,
  options: {
    caller: LiveCaller & { services: Services };
    since: string;
    timing: StreamTiming;
    read: (since: string) => Promise<Feed>;
  },
): Promise<void> {
  const { read, caller } = options;
  const { services, user } = caller;
  const signal = new CommitSignal(services.vaults, user);
  let feed: Feed;
  try {
    feed = await read(options.since);
  } catch (err) {
    signal.stop();
    throw err;
  }
  const stream = new EventStream(res, options.timing);
  const leave = services.live.open(caller, (reason) => {
    if (reason) stream.send('failed', JSON.stringify(reason.toJSON()));
    stream.end();
  });
  stream.onClose(() => signal.stop());
  // The stream holds the vault's lease for its whole life: keep its folder watched too.
  const touching = setInterval(() => services.vaults.touch(user), options.timing.keepAliveMs);
  touching.unref();
  stream.send('ready', JSON.stringify({ cursor: options.since }), options.since);
  try {
    for (;;) {
      for (const change of feed.changes) stream.send('change', JSON.stringify(change), change.commit);
      if (!feed.has_more) await signal.next();
      if (signal.isStopped) return;
      feed = await read(feed.cursor);
    }
  } catch (err) {
    if (!stream.isClosed) stream.send('failed', JSON.stringify(toQuireError(err, services.log).toJSON()));
  } finally {
    clearInterval(touching);
    signal.stop();
    stream.end();
    leave();
  }
}
