import cors, { type CorsOptions } from 'cors';
import type { RequestHandler } from 'express';

/**
 * CORS for browser-based MCP clients (the Inspector's direct mode, web IDEs). Bearer tokens
 * travel in `Authorization`, never in cookies, so credentials mode stays off. The exposed
 * headers are what a client reads: the challenge that starts OAuth, the session and protocol
 * headers, and every rate-limit header we send (ours on /mcp, express-rate-limit's on
 * registration).
 */
const SHARED: CorsOptions = {
  methods: ['GET', 'POST', 'DELETE', 'OPTIONS'],
  allowedHeaders: ['Authorization', 'Content-Type', 'Accept', 'Mcp-Session-Id', 'Mcp-Protocol-Version', 'Last-Event-ID'],
  exposedHeaders: [
    'WWW-Authenticate',
    'Mcp-Session-Id',
    'Mcp-Protocol-Version',
    'X-RateLimit-Limit',
    'X-RateLimit-Remaining',
    'X-RateLimit-Bucket',
    'RateLimit-Policy',
    'RateLimit-Limit',
    'RateLimit-Remaining',
    'RateLimit-Reset',
    'Retry-After',
  ],
  credentials: false,
  maxAge: 600,
  optionsSuccessStatus: 204,
};

/**
 * /mcp: only the listed origins (`QUIRE_MCP_ALLOWED_ORIGINS`), echoed with `Vary: Origin`.
 * Another origin gets no CORS header, and its preflight falls through to the rebinding guard,
 * which answers 403.
 */
export function listedOriginsCors(origins: readonly string[]): RequestHandler {
  const listed = new Set(origins);
  return cors({ ...SHARED, origin: (origin, done) => done(null, origin !== undefined && listed.has(origin) ? origin : false) });
}

/**
 * The OAuth endpoints a client calls from script (metadata, register, token, revoke) are open
 * to every origin: the SDK's handlers there answer `*` themselves, and rightly, since they read
 * no cookie, so a page on any origin can do nothing there its own server could not. Mounted
 * before those handlers so the preflight and the exposed headers are ours.
 */
export const openCors: RequestHandler = cors({ ...SHARED, origin: '*' });
