import { MemoryStore } from 'express-rate-limit';

export interface WindowCount {
  hits: number;
  /** Seconds until the key's window resets; 0 when it has no window running. */
  resetSeconds: number;
}

/**
 * Fixed windows per key, counted by express-rate-limit's store: the counter behind the API's
 * request budgets. A key's window starts at its first hit, and keys idle for a window or two
 * are dropped in bulk, so memory follows recent traffic.
 */
export class FixedWindows {
  private readonly store = new MemoryStore();

  constructor(readonly windowMs: number) {
    this.store.init({ windowMs } as Parameters<MemoryStore['init']>[0]);
  }

  /** Counts one hit and returns the count including it. */
  async hit(key: string): Promise<WindowCount> {
    return this.count(await this.store.increment(key));
  }

  /** The current count, without counting. */
  async peek(key: string): Promise<WindowCount> {
    return this.count(await this.store.get(key));
  }

  shutdown(): void {
    this.store.shutdown();
  }

  private count(info: { totalHits: number; resetTime?: Date } | undefined): WindowCount {
    if (!info?.resetTime) return { hits: info?.totalHits ?? 0, resetSeconds: 0 };
    return { hits: info.totalHits, resetSeconds: Math.max(1, Math.ceil((info.resetTime.getTime() - Date.now()) / 1000)) };
  }
}
