const WINDOW_MS = 15 * 60_000;
const MAX_ENTRIES = 10_000;

export interface ThrottleLimits {
  /** Failed sign-ins per account name per window. */
  perAccount: number;
  /** Failed sign-ins per client address per window. */
  perAddress: number;
}

interface Window {
  failures: number;
  resets_at: number;
}

/**
 * Counts failed sign-ins per submitted account name and per address in fixed windows. Names
 * are counted whether or not the account exists, so being throttled reveals nothing.
 * In memory: a restart forgets, which only helps someone who can restart the server.
 */
export class LoginThrottle {
  private readonly windows = new Map<string, Window>();

  constructor(private readonly limits: ThrottleLimits = { perAccount: 5, perAddress: 20 }, private readonly now: () => number = Date.now) {}

  /** Seconds until sign-in may be tried again, or 0 when it may now. */
  blockedFor(account: string, address: string): number {
    const waits = [this.wait(`a:${account}`, this.limits.perAccount), this.wait(`ip:${address}`, this.limits.perAddress)];
    return Math.max(...waits);
  }

  fail(account: string, address: string): void {
    this.count(`a:${account}`);
    this.count(`ip:${address}`);
  }

  /** A right password clears the account's count (not the address's). */
  succeed(account: string): void {
    this.windows.delete(`a:${account}`);
  }

  private wait(key: string, limit: number): number {
    const window = this.current(key);
    return window && window.failures >= limit ? Math.ceil((window.resets_at - this.now()) / 1000) : 0;
  }

  private count(key: string): void {
    const window = this.current(key) ?? { failures: 0, resets_at: this.now() + WINDOW_MS };
    window.failures++;
    this.windows.delete(key);
    this.windows.set(key, window);
    // Oldest first in insertion order: a flood of names cannot grow the map without bound.
    while (this.windows.size > MAX_ENTRIES) this.windows.delete(this.windows.keys().next().value!);
  }

  private current(key: string): Window | undefined {
    const window = this.windows.get(key);
    if (window && window.resets_at <= this.now()) {
      this.windows.delete(key);
      return undefined;
    }
    return window;
  }
}
