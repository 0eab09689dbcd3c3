import { setImmediate as nextTurn } from 'node:timers/promises';

/**
 * The usual longest stretch between turns: a write's own work (a few pages) stays one block,
 * while a commit of 1,000 files leaves every other request waiting at most about this long.
 */
export const SLICE_MS = 10;

/**
 * Long work cut into slices of at most `ms` between turns of the event loop, so the server
 * answers other requests meanwhile (a turn is taken only once a slice has run its time).
 */
export class Slices {
  private start: number;

  /** `yieldFirst`: the first pause yields whatever ran before it (work the caller cannot time). */
  constructor(
    private readonly ms = SLICE_MS,
    yieldFirst = false,
  ) {
    this.start = yieldFirst ? -Infinity : performance.now();
  }

  /** True once the current slice has run its time. */
  get due(): boolean {
    return performance.now() - this.start >= this.ms;
  }

  /** Yields to the event loop once the current slice has run its time. */
  async pause(): Promise<void> {
    if (!this.due) return;
    await nextTurn();
    this.start = performance.now();
  }
}

/** Runs `steps` (work that yields between steps) to the end at once. */
export function toEnd<T>(steps: Generator<void, T>): T {
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
  }
}

/** Runs `steps` to the end, giving the event loop a turn every `ms`. */
export async function inSlices<T>(steps: Generator<void, T>, ms = SLICE_MS): Promise<T> {
  const slices = new Slices(ms);
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
    if (slices.due) await slices.pause();
  }
}
