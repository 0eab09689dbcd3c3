/** How one item of a batch ended: its value, or the error it alone failed with. */
export type Settled<T> = { value: T } | { error: unknown };

/**
 * Runs a batch: one outcome per item, in the items' order. A throw fails every item. `items`
 * may grow while the runner works, until it calls `seal` (before it returns): items queued
 * meanwhile join the batch that is running instead of waiting for it.
 */
export type BatchRunner<I, T> = (items: I[], seal: () => void) => Promise<Settled<T>[]>;

/** Items one batch takes at most: bounds how long git's locks are held at a time (a `git commit` in the folder fails on a held index.lock). */
const MAX_BATCH = 16;

interface OpenBatch {
  runner: BatchRunner<never, unknown>;
  items: unknown[];
  settle: { resolve: (value: unknown) => void; reject: (err: unknown) => void }[];
}

/**
 * Runs tasks one at a time, in arrival order. Each vault owns one: isomorphic-git has no
 * locking, and unserialized commits were seen to orphan each other.
 * Items given to `batch` that wait in a row behind a running task are run together as one
 * task when their turn comes (group commit: writes that queued up while one was being made
 * durable share the next fsync), still in arrival order and after everything queued before.
 * A batch that has started takes further items of its runner until the runner seals it (the
 * write path: until its last commit is staged, before the fsyncs): over HTTP, 8 writers
 * otherwise settled into two groups taking turns, 3.3–3.5 commits a batch, each write
 * waiting for the other group's whole batch.
 */
export class WriteQueue {
  private tail: Promise<unknown> = Promise.resolve();
  private waiting = 0;
  /** The batch at the end of the queue that has not started: later items of its runner join it. */
  private open: OpenBatch | undefined;

  run<T>(task: () => Promise<T>): Promise<T> {
    this.open = undefined;
    return this.enqueue(task, 1);
  }

  /** Runs `item` through `runner`, together with the items of the same runner queued right before or after it. */
  batch<I, T>(runner: BatchRunner<I, T>, item: I): Promise<T> {
    const open = this.open;
    if (open && open.runner === runner && open.items.length < MAX_BATCH) {
      this.waiting += 1;
      return new Promise<T>((resolve, reject) => {
        open.items.push(item);
        open.settle.push({ resolve: resolve as (value: unknown) => void, reject });
      });
    }
    const batch: OpenBatch = { runner: runner as BatchRunner<never, unknown>, items: [item], settle: [] };
    const first = new Promise<T>((resolve, reject) => batch.settle.push({ resolve: resolve as (value: unknown) => void, reject }));
    const size = () => batch.items.length;
    const seal = () => {
      if (this.open === batch) this.open = undefined;
    };
    void this.enqueue(async () => {
      let outcomes: Settled<unknown>[];
      try {
        outcomes = await batch.runner(batch.items as never[], seal);
      } catch (error) {
        outcomes = batch.items.map(() => ({ error }));
      } finally {
        seal();
      }
      outcomes.forEach((o, i) => ('error' in o ? batch.settle[i].reject(o.error) : batch.settle[i].resolve(o.value)));
    }, size);
    this.open = batch;
    return first;
  }

  /** Tasks and batched items queued or running; health reports it. */
  get pending(): number {
    return this.waiting;
  }

  private enqueue<T>(task: () => Promise<T>, count: number | (() => number)): Promise<T> {
    this.waiting += 1;
    const result = this.tail.then(task);
    const done = () => {
      this.waiting -= typeof count === 'number' ? count : count();
    };
    // The chain must survive a failed task; the caller still sees the rejection.
    this.tail = result.then(done, done);
    return result;
  }
}
