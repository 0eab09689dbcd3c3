import type { ServerResponse } from 'node:http';
import type { RequestHandler } from 'express';

/**
 * What every response carries, API answers, errors and 404s included: nothing may frame,
 * sniff or load from it. Browser pages replace the Content-Security-Policy with their own
 * (`sendPage`), which allows only our stylesheet and script. The referrer policy is
 * `same-origin`, not `no-referrer`: the latter makes browsers send `Origin: null` on our
 * own form posts, which the CSRF check must be able to tell apart.
 */
export const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'Content-Security-Policy': "default-src 'none'; frame-ancestors 'none'; base-uri 'none'",
  'X-Content-Type-Options': 'nosniff',
  'X-Frame-Options': 'DENY',
  'Referrer-Policy': 'same-origin',
  'Cross-Origin-Opener-Policy': 'same-origin',
};

const HEADER_ENTRIES = Object.entries(SECURITY_HEADERS);

/** Plain `setHeader`: `res.set` re-checks each value's type and charset on every request. */
export function setSecurityHeaders(res: ServerResponse): void {
  for (const [name, value] of HEADER_ENTRIES) res.setHeader(name, value);
}

/** First in the app, so no answer (even Express's last-resort one) goes out without them. */
export const securityHeaders: RequestHandler = (_req, res, next) => {
  setSecurityHeaders(res);
  next();
};
