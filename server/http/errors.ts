import type { ServerResponse } from 'node:http';
import { QuireError, isQuireError } from '../../vault-store/errors.js';
import { HTTP_STATUS } from './status.js';
import { sendJson } from './send-json.js';
import { errorFields, type Logger } from '../log/logger.js';

interface HttpError {
  type?: string;
  message?: string;
  status?: unknown;
}

/**
 * Body-parser failures arrive as plain errors with a `type`; give them our codes. Any other
 * client error Express or a parser raises carries a 4xx `status` (a path parameter that
 * does not decode is a URIError with status 400): the request was at fault, not us.
 */
function fromHttpError(err: HttpError): QuireError | undefined {
  switch (err.type) {
    case 'entity.parse.failed':
      return new QuireError('INVALID_REQUEST', 'Request body is not valid JSON');
    case 'entity.too.large':
      return new QuireError('PAYLOAD_TOO_LARGE', 'Request body is too large');
    case 'encoding.unsupported':
    case 'charset.unsupported':
      return new QuireError('INVALID_REQUEST', err.message ?? 'Unsupported body encoding');
  }
  if (typeof err.status !== 'number' || err.status < 400 || err.status > 499) return undefined;
  return err.status === 413
    ? new QuireError('PAYLOAD_TOO_LARGE', 'Request is too large')
    : new QuireError('INVALID_REQUEST', 'The request could not be read');
}

/**
 * Our error for anything thrown. An unexpected one is logged here, once, for the operator:
 * its stack only, not the object, whose other fields (a request body, headers) may hold
 * secrets; the client only learns that it failed.
 */
export function toQuireError(err: unknown, log: Logger): QuireError {
  if (isQuireError(err)) return err;
  const known = err !== null && typeof err === 'object' ? fromHttpError(err as HttpError) : undefined;
  if (known) return known;
  log.error(errorFields(err), 'internal error');
  return new QuireError('INTERNAL', 'Internal server error');
}

/** The JSON error body (and its auth and rate-limit headers) of REST, and of any unclaimed path the final handler answers for it. */
export function sendError(res: ServerResponse, error: QuireError): void {
  if (error.code === 'UNAUTHENTICATED' && !res.getHeader('WWW-Authenticate')) res.setHeader('WWW-Authenticate', 'Bearer');
  if (error.code === 'RATE_LIMITED') {
    const { bucket, limit, retry_after: retryAfter } = error.details as { bucket: string; limit: number; retry_after: number };
    res.setHeader('X-RateLimit-Limit', String(limit));
    res.setHeader('X-RateLimit-Remaining', '0');
    res.setHeader('X-RateLimit-Bucket', bucket);
    res.setHeader('Retry-After', String(retryAfter));
  }
  // A vault busy with a git operation in its folder: writes resume when it ends.
  if (error.code === 'VAULT_BUSY') res.setHeader('Retry-After', String(error.details.retry_after ?? 5));
  sendJson(res, HTTP_STATUS[error.code], error.toJSON());
}
