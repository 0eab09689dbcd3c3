import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { ServerNotification, ServerRequest } from '@modelcontextprotocol/sdk/types.js';
import type { OpContext } from '../ops/operation.js';

/** Between two progress notifications of one request, except the last: enough to watch, not a flood. */
const MIN_INTERVAL_MS = 100;

/** True for a single JSON-RPC request that asks for progress (`params._meta.progressToken`). */
export function asksForProgress(body: unknown): boolean {
  const token = (body as { params?: { _meta?: { progressToken?: unknown } } } | null)?.params?._meta?.progressToken;
  return !Array.isArray(body) && (typeof token === 'string' || typeof token === 'number');
}

/**
 * The operation's `progress` for a request carrying a progress token: `notifications/progress`
 * on the request's own SSE response (the router answers such a request as SSE when the
 * client accepts it). Increasing values only, as the spec requires, at most one per 100 ms.
 */
export function progressReporter(extra: RequestHandlerExtra<ServerRequest, ServerNotification>): OpContext['progress'] {
  const progressToken = extra._meta?.progressToken;
  if (progressToken === undefined) return undefined;
  let last: number | undefined;
  let sentAt = 0;
  return (done, total, message) => {
    if (last !== undefined && done <= last) return;
    const now = performance.now();
    const final = total !== undefined && done >= total;
    if (last !== undefined && !final && now - sentAt < MIN_INTERVAL_MS) return;
    last = done;
    sentAt = now;
    const params = { progressToken, progress: done, ...(total !== undefined ? { total } : {}), ...(message ? { message } : {}) };
    // A client that went away cannot hear it; the operation goes on regardless.
    extra.sendNotification({ method: 'notifications/progress', params }).catch(() => undefined);
  };
}
