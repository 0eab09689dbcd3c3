/**
 * Runs tasks one at a time, in arrival order. Each vault owns one: isomorphic-git has no
 * locking, and unserialized commits were seen to orphan each other.
 */
export class WriteQueue {
  private tail: Promise<unknown> = Promise.resolve();
  private waiting = 0;

  run<T>(task: () => Promise<T>): Promise<T> {
    this.waiting += 1;
    const result = this.tail.then(task);
    // The chain must survive a failed task; the caller still sees the rejection.
    this.tail = result.then(
      () => {
        this.waiting -= 1;
      },
      () => {
        this.waiting -= 1;
      },
    );
    return result;
  }

  /** Tasks queued or running; health reports it. */
  get pending(): number {
    return this.waiting;
  }
}
