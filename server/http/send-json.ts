import type { ServerResponse } from 'node:http';

/**
 * A JSON answer written directly: what `res.status(n).json(value)` sends here (no JSON
 * settings, ETags off, no Last-Modified), without Express's per-call lookups of settings,
 * the MIME table and request freshness. HEAD gets the headers only. The body goes out as
 * UTF-8 bytes, not as the string: node joins a string body to the header into one string,
 * two-byte once the JSON holds a non-Latin-1 character (a snippet's "…"), and encoding that
 * inside the socket write was a fifth of a search's CPU (`npm run bench -- read-path`).
 */
export function sendJson(res: ServerResponse, status: number, value: unknown): void {
  const body = Buffer.from(JSON.stringify(value));
  res.statusCode = status;
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.setHeader('Content-Length', body.length);
  res.end(res.req.method === 'HEAD' ? undefined : body);
}
