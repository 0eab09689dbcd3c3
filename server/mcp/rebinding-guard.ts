import type { RequestHandler } from 'express';
import { hostHeaderValidation } from '@modelcontextprotocol/sdk/server/middleware/hostHeaderValidation.js';

const LOOPBACK = ['localhost', '127.0.0.1', '[::1]'];

function forbidden(message: string) {
  return { jsonrpc: '2.0', error: { code: -32000, message }, id: null };
}

/**
 * DNS-rebinding protection for /mcp: the Host header must name the configured base URL's
 * host, and a browser's Origin (when sent) must be the base URL's origin. A loopback base
 * URL accepts every loopback spelling, since local clients use them interchangeably.
 */
export function rebindingGuard(baseUrl: string): RequestHandler[] {
  const base = new URL(baseUrl);
  const loopback = LOOPBACK.includes(base.hostname);
  const hosts = loopback ? LOOPBACK : [base.hostname];
  const origins = new Set(loopback ? LOOPBACK.map((h) => `${base.protocol}//${h}${base.port ? `:${base.port}` : ''}`) : [base.origin]);
  const originCheck: RequestHandler = (req, res, next) => {
    const origin = req.headers.origin;
    if (origin !== undefined && !origins.has(origin)) {
      res.status(403).json(forbidden(`Origin ${origin} may not call this server`));
      return;
    }
    next();
  };
  return [hostHeaderValidation(hosts), originCheck];
}
