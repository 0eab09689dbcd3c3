import type { ErrorRequestHandler, Response } from 'express';
import { QuireError, isQuireError } from '../../vault-store/errors.js';
import { HTTP_STATUS } from '../http/status.js';

/** Body-parser failures arrive as plain errors with a `type`; give them our codes. */
function fromBodyParser(err: { type?: string; message?: string }): QuireError | undefined {
  switch (err.type) {
    case 'entity.parse.failed':
      return new QuireError('INVALID_REQUEST', 'Request body is not valid JSON');
    case 'entity.too.large':
      return new QuireError('PAYLOAD_TOO_LARGE', 'Request body is too large');
    case 'encoding.unsupported':
    case 'charset.unsupported':
      return new QuireError('INVALID_REQUEST', err.message ?? 'Unsupported body encoding');
    default:
      return undefined;
  }
}

export function toQuireError(err: unknown): QuireError {
  if (isQuireError(err)) return err;
  const parsed = fromBodyParser(err as { type?: string });
  if (parsed) return parsed;
  // Log the real cause for the operator; the client only learns that it failed.
  console.error('quire: internal error:', err);
  return new QuireError('INTERNAL', 'Internal server error');
}

export function sendError(res: Response, error: QuireError): void {
  if (error.code === 'UNAUTHENTICATED' && !res.getHeader('WWW-Authenticate')) res.setHeader('WWW-Authenticate', 'Bearer');
  if (error.code === 'RATE_LIMITED') {
    const { bucket, limit, retry_after: retryAfter } = error.details as { bucket: string; limit: number; retry_after: number };
    res.setHeader('X-RateLimit-Limit', String(limit));
    res.setHeader('X-RateLimit-Remaining', '0');
    res.setHeader('X-RateLimit-Bucket', bucket);
    res.setHeader('Retry-After', String(retryAfter));
  }
  res.status(HTTP_STATUS[error.code]).json(error.toJSON());
}

export const jsonErrorHandler: ErrorRequestHandler = (err, _req, res, next) => {
  if (res.headersSent) return next(err);
  sendError(res, toQuireError(err));
};
