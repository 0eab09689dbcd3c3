import type { RequestHandler } from 'express';
import { QuireError } from '../../vault-store/errors.js';

function decodes(text: string): boolean {
  try {
    decodeURIComponent(text);
    return true;
  } catch {
    return false;
  }
}

/**
 * A URL whose %-escapes are malformed or spell invalid UTF-8 is refused before routing.
 * Left to Express, a path parameter throws URIError (a 500, or its HTML 400 page) and the
 * query parser quietly turns the bytes into U+FFFD. The bad part decides the code: a page
 * path (under one of `pagePrefixes`, or a `path` parameter) is INVALID_PATH, anything
 * else INVALID_REQUEST; the final error handler answers in the surface's own format.
 */
export function refuseMalformedUrl(pagePrefixes: readonly string[]): RequestHandler {
  return (req, _res, next) => next(malformedUrl(req.originalUrl, pagePrefixes));
}

/** The refusal of `url` (a request's whole URL) as `refuseMalformedUrl` gives it, or undefined when it decodes. */
export function malformedUrl(url: string, pagePrefixes: readonly string[]): QuireError | undefined {
  const mark = url.indexOf('?');
  const path = mark === -1 ? url : url.slice(0, mark);
  const query = mark === -1 ? '' : url.slice(mark + 1);
  if (!decodes(path)) {
    const page = pagePrefixes.some((prefix) => path.startsWith(prefix));
    return page
      ? new QuireError('INVALID_PATH', 'Invalid path: its %-escapes in the URL are not valid UTF-8')
      : new QuireError('INVALID_REQUEST', 'The URL path has %-escapes that are not valid UTF-8');
  }
  // Most URLs have no escape at all: nothing to check.
  if (!query.includes('%')) return undefined;
  const bad = query.split('&').filter((pair) => !decodes(pair));
  if (bad.some((pair) => pair.startsWith('path=')))
    return new QuireError('INVALID_PATH', 'Invalid path: its %-escapes in the query are not valid UTF-8');
  if (bad.length) return new QuireError('INVALID_REQUEST', 'The URL query has %-escapes that are not valid UTF-8');
  return undefined;
}
