import type { VaultRegistry } from '../vaults/user-vault.js';

/**
 * Wakes a waiter when the user's vault commits, whatever made the commit (an API write, a
 * folder edit the watcher commits, a push, an outside commit the vault follows): it listens
 * through `VaultRegistry.onCommit`, which MCP subscriptions use too and which stays across the
 * vault being closed and reopened. Commits are only noted; the waiter reads the change feed.
 */
export class CommitSignal {
  private pending = false;
  private stopped = false;
  private wake: (() => void) | undefined;
  private readonly unlisten: () => void;

  constructor(vaults: VaultRegistry, user: string) {
    // The listener runs inside the write queue: the waiter resumes after it, on a turn of its own.
    this.unlisten = vaults.onCommit(user, () => {
      this.pending = true;
      setImmediate(() => this.wake?.());
    });
  }

  get isStopped(): boolean {
    return this.stopped;
  }

  /** Resolves at the next commit (at once if one came since the last call), at `stop`, or after `ms`. */
  next(ms: number = Infinity): Promise<void> {
    if (this.pending || this.stopped) {
      this.pending = false;
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      const timer = Number.isFinite(ms) ? setTimeout(() => this.wake?.(), ms) : undefined;
      this.wake = () => {
        clearTimeout(timer);
        this.wake = undefined;
        this.pending = false;
        resolve();
      };
    });
  }

  /** Stops listening and wakes the waiter for good. */
  stop(): void {
    if (this.stopped) return;
    this.stopped = true;
    this.unlisten();
    this.wake?.();
  }
}
