import type { ServerResponse } from 'node:http';
import type { RateState } from '../ratelimit/limiter.js';

/** The `X-RateLimit-*` headers of a response: the bucket the request counted against and what is left of it this minute. */
export function setRateHeaders(res: ServerResponse, rate: Pick<RateState, 'bucket' | 'limit' | 'remaining'>): void {
  res.setHeader('X-RateLimit-Limit', String(rate.limit));
  res.setHeader('X-RateLimit-Remaining', String(rate.remaining));
  res.setHeader('X-RateLimit-Bucket', rate.bucket);
}
