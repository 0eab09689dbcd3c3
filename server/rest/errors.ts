import type { ErrorRequestHandler } from 'express';
import { sendError, toQuireError } from '../http/errors.js';
import type { Logger } from '../log/logger.js';

/** The REST router's own error handler: errors raised under `/vault` answer as JSON there. */
export function jsonErrorHandler(log: Logger): ErrorRequestHandler {
  return (err, _req, res, next) => {
    if (res.headersSent) return next(err);
    sendError(res, toQuireError(err, log));
  };
}
