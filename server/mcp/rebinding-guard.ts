import type { RequestHandler } from 'express';
import { hostHeaderValidation } from '@modelcontextprotocol/sdk/server/middleware/hostHeaderValidation.js';
import { isLoopbackHost, LOOPBACK_HOSTS } from '../http/loopback.js';

function forbidden(message: string) {
  return { jsonrpc: '2.0', error: { code: -32000, message }, id: null };
}

/**
 * DNS-rebinding protection for /mcp: the Host header must name the configured base URL's
 * host, and a browser's Origin (when sent) must be the base URL's origin or one listed in
 * `QUIRE_MCP_ALLOWED_ORIGINS`. A loopback base URL accepts every loopback spelling, since
 * local clients use them interchangeably.
 */
export function rebindingGuard(baseUrl: string, allowedOrigins: readonly string[]): RequestHandler[] {
  const base = new URL(baseUrl);
  const loopback = isLoopbackHost(base.hostname);
  const hosts = loopback ? [...LOOPBACK_HOSTS] : [base.hostname];
  const own = loopback ? LOOPBACK_HOSTS.map((h) => `${base.protocol}//${h}${base.port ? `:${base.port}` : ''}`) : [base.origin];
  const origins = new Set([...own, ...allowedOrigins]);
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
