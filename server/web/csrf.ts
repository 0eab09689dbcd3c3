import type { Request } from 'express';
import { FORM_COOKIE, readCookie, sameSecret } from './cookies.js';

/**
 * A state-changing request must come from our own pages: the browser says so (Sec-Fetch-Site,
 * Origin) when it can, and the form must carry the expected token in every case. Either
 * check alone stops a forged cross-site post; both are cheap.
 */
export function fromOwnPage(req: Request, ownOrigin: string): boolean {
  const site = req.headers['sec-fetch-site'];
  if (site !== undefined && site !== 'same-origin' && site !== 'none') return false;
  const origin = req.headers.origin;
  return origin === undefined || origin === ownOrigin;
}

/** The session's token must come back in the form. */
export function formMatches(req: Request, expected: string): boolean {
  const sent = typeof req.body?.csrf === 'string' ? req.body.csrf : '';
  return sent !== '' && sameSecret(sent, expected);
}

/** Before a session exists: the form's token must equal the SameSite=Strict cookie's. */
export function formMatchesCookie(req: Request): boolean {
  const cookie = readCookie(req, FORM_COOKIE);
  return cookie !== undefined && formMatches(req, cookie);
}
