import type { RequestHandler } from 'express';
import { rateLimit } from 'express-rate-limit';
import { TooManyRequestsError } from '@modelcontextprotocol/sdk/server/auth/errors.js';

/**
 * In place of the SDK's limit on `/oauth/register` (20 an hour, refusals counted): clients
 * such as Claude register on every fresh connection, so a person reconnecting through the day
 * needs more, and a refused registration cost nothing worth counting. Keyed by `req.ip`, which
 * is the client behind a proxy only with `QUIRE_TRUST_PROXY` (IPv6 by /56, express-rate-limit's
 * default). Counts live in memory: a restart resets them.
 */
export function registrationLimit(perHour: number): RequestHandler {
  return rateLimit({
    windowMs: 60 * 60_000,
    limit: perHour,
    skipFailedRequests: true,
    standardHeaders: 'draft-6',
    legacyHeaders: false,
    // Its warning about an untrusted X-Forwarded-For is a stack trace on stderr, outside our log;
    // QUIRE_TRUST_PROXY's documentation says when to set it.
    validate: { xForwardedForHeader: false },
    message: new TooManyRequestsError('Too many client registrations from this address; try again within the hour').toResponseObject(),
  });
}
