/**
 * The builder's entry (see build.ts), a child process: takes what to build as its first
 * message, builds and saves the snapshot, telling the parent of its progress, then says how
 * it ended and exits. A parent that dies (kill -9) closes the channel: the builder stops
 * then, rather than write into a folder a restarted server may be building in too.
 */
import { buildSnapshot, type BuildInput, type BuildMessage } from './build-snapshot.js';
import { postedError } from './worker-thread.js';

const tell = (message: BuildMessage) => new Promise<void>((resolve) => process.send!(message, undefined, {}, () => resolve()));

// Given by the parent's `--expose-gc` (build.ts).
const collect = (globalThis as { gc?: () => void }).gc;

process.on('disconnect', () => process.exit(1));
process.once('message', (input: BuildInput) => {
  buildSnapshot(input, { parallel: true, collect, progress: (done, total) => void tell({ done, total }) })
    .then(
      () => tell({ built: true }),
      (err: unknown) => tell({ failed: postedError(err) }),
    )
    .finally(() => process.exit(0));
});
