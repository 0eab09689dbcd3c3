import { randomBytes, timingSafeEqual } from 'node:crypto';
import { parse } from 'cookie';
import type { CookieOptions, Request, Response } from 'express';

/** Our values are what `res.cookie` wrote; one that does not decode was not, and counts as absent. */
function decodeOrDrop(value: string): string | undefined {
  try {
    return decodeURIComponent(value);
  } catch {
    return undefined;
  }
}

export function readCookie(req: Request, name: string): string | undefined {
  return parse(req.headers.cookie ?? '', { decode: decodeOrDrop })[name] || undefined;
}

export function sameSecret(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/** Cookie settings of one browser area (its path, and Secure when it is served over https). */
export class CookieJar {
  constructor(
    private readonly path: string,
    private readonly secure: boolean,
  ) {}

  set(res: Response, name: string, value: string, options: { sameSite: 'lax' | 'strict'; maxAgeMs?: number }): void {
    const cookie: CookieOptions = { httpOnly: true, sameSite: options.sameSite, secure: this.secure, path: this.path };
    if (options.maxAgeMs) cookie.maxAge = options.maxAgeMs;
    res.cookie(name, value, cookie);
  }

  clear(res: Response, name: string): void {
    res.clearCookie(name, { httpOnly: true, secure: this.secure, path: this.path });
  }

  /**
   * The pre-session CSRF token (sign-in and welcome forms): reuses the cookie's value when
   * the browser has one, so two open tabs do not invalidate each other.
   */
  formToken(req: Request, res: Response): string {
    const token = readCookie(req, FORM_COOKIE) || randomBytes(24).toString('base64url');
    this.set(res, FORM_COOKIE, token, { sameSite: 'strict' });
    return token;
  }
}

export const FORM_COOKIE = 'quire_form';
