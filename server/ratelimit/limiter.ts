import { MemoryStore } from 'express-rate-limit';
import { QuireError } from '../../vault-store/errors.js';
import type { Bucket, Plan } from '../accounts/plans.js';

export const WINDOW_MS = 60_000;

export interface RateState {
  bucket: Bucket;
  limit: number;
  remaining: number;
  /** Seconds until the window resets. */
  resetSeconds: number;
}

/**
 * Per-user, per-bucket fixed windows, counted by express-rate-limit's store. REST and MCP
 * both call `consume`, so a user's calls share one budget whichever surface they use.
 */
export class RateLimiter {
  private readonly stores = new Map<Bucket, MemoryStore>();

  constructor(private readonly now: () => number = Date.now) {}

  private store(bucket: Bucket): MemoryStore {
    let store = this.stores.get(bucket);
    if (!store) {
      store = new MemoryStore();
      store.init({ windowMs: WINDOW_MS } as Parameters<MemoryStore['init']>[0]);
      this.stores.set(bucket, store);
    }
    return store;
  }

  /** Counts one request; throws RATE_LIMITED (with the state in details) when over. */
  async consume(user: string, bucket: Bucket, plan: Plan): Promise<RateState> {
    const limit = plan.limits[bucket];
    const { totalHits, resetTime } = await this.store(bucket).increment(user);
    const resetSeconds = Math.max(1, Math.ceil(((resetTime?.getTime() ?? this.now() + WINDOW_MS) - this.now()) / 1000));
    const state: RateState = { bucket, limit, remaining: Math.max(0, limit - totalHits), resetSeconds };
    if (totalHits > limit) {
      throw new QuireError('RATE_LIMITED', `Rate limit of ${limit} ${bucket} requests per minute reached; retry in ${resetSeconds}s`, {
        bucket, limit, retry_after: resetSeconds,
      });
    }
    return state;
  }

  /** Current standing without counting (whoami, account page). */
  async peek(user: string, bucket: Bucket, plan: Plan): Promise<RateState> {
    const info = await this.store(bucket).get(user);
    const limit = plan.limits[bucket];
    const hits = info?.totalHits ?? 0;
    const resetSeconds = info?.resetTime ? Math.max(0, Math.ceil((info.resetTime.getTime() - this.now()) / 1000)) : 0;
    return { bucket, limit, remaining: Math.max(0, limit - hits), resetSeconds };
  }

  shutdown(): void {
    for (const store of this.stores.values()) store.shutdown();
  }
}
