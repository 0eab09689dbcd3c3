import { QuireError } from '../../vault-store/errors.js';
import type { Bucket, Plan } from '../accounts/plans.js';
import { FixedWindows } from './windows.js';

export const WINDOW_MS = 60_000;

export interface RateState {
  bucket: Bucket;
  limit: number;
  remaining: number;
  /** Seconds until the window resets. */
  resetSeconds: number;
}

/**
 * Per-user, per-bucket one-minute windows. REST and MCP both call `consume`, so a user's
 * calls share one budget whichever surface they use.
 */
export class RateLimiter {
  private readonly buckets = new Map<Bucket, FixedWindows>();

  private windows(bucket: Bucket): FixedWindows {
    let windows = this.buckets.get(bucket);
    if (!windows) {
      windows = new FixedWindows(WINDOW_MS);
      this.buckets.set(bucket, windows);
    }
    return windows;
  }

  /** Counts one request; throws RATE_LIMITED (with the state in details) when over. */
  async consume(user: string, bucket: Bucket, plan: Plan): Promise<RateState> {
    const limit = plan.limits[bucket];
    const { hits, resetSeconds } = await this.windows(bucket).hit(user);
    if (hits > limit) {
      throw new QuireError('RATE_LIMITED', `Rate limit of ${limit} ${bucket} requests per minute reached; retry in ${resetSeconds}s`, {
        bucket,
        limit,
        retry_after: resetSeconds,
      });
    }
    return { bucket, limit, remaining: limit - hits, resetSeconds };
  }

  /** Current standing without counting (whoami, account page). */
  async peek(user: string, bucket: Bucket, plan: Plan): Promise<RateState> {
    const limit = plan.limits[bucket];
    const { hits, resetSeconds } = await this.windows(bucket).peek(user);
    return { bucket, limit, remaining: Math.max(0, limit - hits), resetSeconds };
  }

  shutdown(): void {
    for (const windows of this.buckets.values()) windows.shutdown();
  }
}
