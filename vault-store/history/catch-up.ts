import { QuireError } from '../errors.js';
import { Slices } from '../slices.js';

/** Longest run of catch-up work between turns of the event loop (requests, the write queue). */
const CATCH_UP_SLICE_MS = 20;

/**
 * How far a catch-up of the change index has got, and the turns it gives the event loop: a
 * first build of a long history (100k commits: a minute or more) runs in slices so the
 * server keeps answering and writing meanwhile, and queries that cannot wait are told when
 * to come back.
 */
export class CatchUp {
  /** Commits to index, once the walk back from the head has counted them. */
  total: number | undefined;
  done = 0;
  private readonly started = performance.now();
  private readonly slices = new Slices(CATCH_UP_SLICE_MS);

  /** Yields to the event loop once the current slice has run its time. */
  pause(): Promise<void> {
    return this.slices.pause();
  }

  /** VAULT_BUSY with a guess of when the catch-up will be done (from its pace so far). */
  busy(): QuireError {
    const { total, done } = this;
    const left = total === undefined || done === 0 ? 5 : ((total - done) * (performance.now() - this.started)) / done / 1000;
    const progress = total === undefined ? 'reading the commits' : `${done} of ${total} commits`;
    return new QuireError('VAULT_BUSY', `History is being indexed (${progress}): try again shortly`, {
      retry_after: Math.min(60, Math.max(1, Math.ceil(left))),
    });
  }
}

/** `task`, or `late()` thrown once `ms` have passed; the task itself goes on. */
export async function waitAtMost<T>(task: Promise<T>, ms: number, late: () => Error): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(late()), ms);
  });
  try {
    return await Promise.race([task, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
