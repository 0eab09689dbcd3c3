import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { FolderWatcher } from '../../vault-store/watcher/folder-watcher.js';
import type { Reporter } from './progress.js';
import { describe, type SyncClient } from './sync-client.js';
import { SyncError } from './sync-error.js';
import { STATE_FOLDER } from './sync-state.js';

export interface WatchOptions {
  signal: AbortSignal;
  report: Reporter;
  /** Quiet time after the last local event before a pass: an editor's save is several writes. */
  settleMs?: number;
  /** Wait before trying again after the server could not be reached. */
  retryMs?: number;
}

const PENDING_RETRY_MS = 2000;

/** How long one wait for server changes lasts before it is asked again. */
const SERVER_WAIT_MS = 30_000;

/**
 * `quire sync --watch`: a pass, then another whenever the folder has settled after a change
 * or the server has a commit past the cursor (the change log's long-poll, remote.ts), until
 * `signal` aborts. Each pass scans the whole folder (stats only, the cache spares the reads),
 * so an event only has to say that something changed, not what.
 * The folder is watched one `fs.watch` per folder (FolderWatcher, as the server does), not with
 * Node's recursive `fs.watch`: on Linux that one watches each *file*, and a file replaced by a
 * rename (every download of ours, and many editors' saves) keeps a watch on the old inode, so
 * later in-place edits of it were never reported and the folder stayed out of sync until some
 * other change. A pass that cannot reach the server is retried; an error a person must fix (a
 * revoked key, a full disk) ends it.
 */
export async function watchFolder(client: SyncClient, options: WatchOptions): Promise<void> {
  const { signal, report } = options;
  let due = true;
  let wake: () => void = () => {};
  const trigger = () => {
    due = true;
    wake();
  };
  let settle: NodeJS.Timeout | undefined;
  const stateFolder = join(client.dir, STATE_FOLDER);
  const local = await FolderWatcher.start(
    client.dir,
    (absolute) => {
      if (absolute === stateFolder) return;
      clearTimeout(settle);
      settle = setTimeout(trigger, options.settleMs ?? 300);
    },
    // A folder that could not be looked at: the pass it triggers will say what is wrong.
    () => trigger(),
    (folder) => folder === stateFolder,
  );
  signal.addEventListener('abort', () => wake());
  const serverWatch = (async () => {
    while (!signal.aborted) {
      const cursor = client.cursor;
      if (!cursor) {
        await sleep(200);
        continue;
      }
      try {
        if (await client.remote.waitForChanges(cursor, SERVER_WAIT_MS, signal)) {
          trigger();
          // Until the pass moves the cursor, the same commits would wake us again.
          for (let waited = 0; !signal.aborted && client.cursor === cursor && waited < SERVER_WAIT_MS; waited += 50) await sleep(50);
        }
      } catch {
        await sleep(options.retryMs ?? 5000, undefined, { signal }).catch(() => undefined);
      }
    }
  })();
  try {
    while (!signal.aborted) {
      if (!due) await new Promise<void>((resolve) => (wake = resolve));
      if (signal.aborted) break;
      due = false;
      try {
        const result = await client.once();
        if (result.downloaded || result.uploaded || result.deleted || result.merged || result.conflicts.length)
          report.line(describe(result));
        // A file still being written (or unreadable) is looked at again, but not in a tight loop.
        if (result.pending) setTimeout(trigger, PENDING_RETRY_MS).unref();
      } catch (err) {
        if (!(err instanceof SyncError) || err.fatal) throw err;
        report.line(`${err.message}; trying again`);
        await sleep(options.retryMs ?? 5000, undefined, { signal }).catch(() => undefined);
        due = true;
      }
    }
  } finally {
    clearTimeout(settle);
    local.close();
    await serverWatch;
  }
}
