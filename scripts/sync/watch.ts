import { watch, type FSWatcher } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
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
 * `signal` aborts. Each pass scans the whole folder (stats only, the cache spares the reads):
 * Node 20's recursive fs.watch on Linux missed events under load, so the names it reports
 * are not trusted to be all that changed. A pass that cannot reach
 * the server is retried; an error a person must fix (a revoked key, a full disk) ends it.
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
  const local: FSWatcher = watch(client.dir, { recursive: true }, (_event, name) => {
    const path = String(name ?? '');
    if (path === STATE_FOLDER || path.startsWith(`${STATE_FOLDER}/`) || path.split('/').includes('.git')) return;
    clearTimeout(settle);
    settle = setTimeout(trigger, options.settleMs ?? 300);
  });
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
