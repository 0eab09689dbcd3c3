import { setImmediate } from 'node:timers/promises';
import { getHeapStatistics } from 'node:v8';
import { addParsed, emptyState, stateSections } from './knowledge-state.js';
import { parsedInWorker, parsePages, type PageList } from './parse-pages.js';
import { SnapshotStore } from './persist.js';
import { BodyStore } from './search/body-store.js';
import { SearchIndex } from './search/search-index.js';
import type { PostedError } from './worker-thread.js';

/** Told how far a long task has come: `done` of `total` units. */
export type Progress = (done: number, total: number) => void;

/** What a build reads: the pages of one commit, and where the snapshot goes. */
export interface BuildInput extends PageList {
  /** The index folder the snapshot is written into. */
  dir: string;
  commit: string;
}

export interface BuildOptions {
  /** Read and parse the pages in a worker thread meanwhile (see `parsedInWorker`). */
  parallel: boolean;
  progress?: Progress;
  /**
   * A full garbage collection: run once the pages are filed, and while they are filed and
   * the sections written whenever the heap grew enough since the last one, so that one
   * phase's garbage is gone before the next one's bytes are made. A collection after every
   * section cost ~0.6 s of a 5 s build at 10k pages for a lower peak only at 100k.
   */
  collect?: () => void;
}

/** What the builder posts: progress, then how it ended. */
export type BuildMessage = { done: number; total: number } | { built: true } | { failed: PostedError };

/**
 * Reads every page blob of `input`, indexes it and writes the whole as a new snapshot of the
 * folder: what a warm start then opens. Needs nothing of the vault but its object store, so
 * it runs in a builder process (see build.ts), whose memory goes away with its garbage;
 * there, with `parallel`, the pages are read and parsed in a worker thread meanwhile.
 * The bodies go to a file of the folder as they are read, a few MB at a time: held until
 * the save, they were the bulk of a build's peak memory. Nothing the folder's snapshot
 * names is touched: the next open of the folder sweeps what the new manifest does not name.
 */
export async function buildSnapshot(input: BuildInput, options: BuildOptions): Promise<void> {
  const bodies = new BodyStore();
  await bodies.attach(input.dir, () => undefined);
  try {
    const state = emptyState(new SearchIndex([], undefined, undefined, bodies));
    let done = 0;
    const collect = options.collect && collectOnGrowth(options.collect);
    for await (const batch of options.parallel ? parsedInWorker(input) : parsePages(input)) {
      for (const page of batch) {
        // In the serving thread (a small vault), a turn of the event loop between parsing a
        // page and filing it: a 1 MiB hostile page held /healthz 85–164 ms for both at once,
        // 35–59 ms for each alone (test/security/scanner-dos.timed.test.ts allows 200).
        if (!options.parallel) await setImmediate();
        addParsed(state, page);
      }
      done += batch.length;
      options.progress?.(done, input.paths.length);
      collect?.(false);
    }
    collect?.(true);
    const { table, ...append } = await bodies.save();
    const store = await SnapshotStore.past(input.dir);
    const { sections } = stateSections(state);
    await store.write(store.prepare(input.commit, { ...sections, 'body-table': table }, append), () => collect?.(false));
  } finally {
    await bodies.close();
  }
}

/** Heap growth since the last collection that makes the next one while pages are filed. */
const COLLECT_GROWTH = 64 << 20;

/**
 * `collect`, run when told to (`now`) or once the heap grew COLLECT_GROWTH past what the
 * last collection left. V8 let the builder's heap grow far past its live data before
 * collecting on its own: its peak at 100k pages was 490 MB without these collections, 405–419
 * with them, at the same CPU.
 */
function collectOnGrowth(collect: () => void): (now: boolean) => void {
  let left = 0;
  return (now) => {
    if (!now && getHeapStatistics().used_heap_size < left + COLLECT_GROWTH) return;
    collect();
    left = getHeapStatistics().used_heap_size;
  };
}
