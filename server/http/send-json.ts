import type { ServerResponse } from 'node:http';

/**
 * A JSON answer written directly: what `res.status(n).json(value)` sends here (no JSON
 * settings, ETags off, no Last-Modified), without Express's per-call lookups of settings,
 * the MIME table and request freshness. HEAD gets the headers only.
 */
export function sendJson(res: ServerResponse, status: number, value: unknown): void {
  const body = JSON.stringify(value);
  res.statusCode = status;
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.setHeader('Content-Length', Buffer.byteLength(body));
  res.end(res.req.method === 'HEAD' ? undefined : body);
}
