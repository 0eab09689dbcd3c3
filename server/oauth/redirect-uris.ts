import type { RequestHandler } from 'express';
import { CustomOAuthError } from '@modelcontextprotocol/sdk/server/auth/errors.js';

const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);
/** Schemes a browser runs, reads locally or cannot return to: never an app's redirect. */
const REFUSED_SCHEMES = new Set([
  'javascript',
  'data',
  'file',
  'vbscript',
  'about',
  'blob',
  'filesystem',
  'view-source',
  'ftp',
  'ws',
  'wss',
]);
const SCHEME = /^[a-z][a-z0-9+.-]*$/;
const MAX_LENGTH = 2000;

function refuse(uri: string, reason: string): never {
  throw new CustomOAuthError('invalid_redirect_uri', `${JSON.stringify(uri)} is not allowed: ${reason}`);
}

/**
 * RFC 8252 and OAuth 2.1: https anywhere, http only back to this machine (any port), or a
 * native app's private-use scheme (`cursor://…`, `com.example.app:/cb`; RFC 8252 §7.1 prefers
 * reverse-DNS names, but the common apps use bare ones). Exact strings: no fragment, no
 * wildcard, no user-info, nothing relative.
 */
export function checkRedirectUri(uri: string): void {
  if (uri.length > MAX_LENGTH) refuse(uri.slice(0, 40) + '…', `longer than ${MAX_LENGTH} characters`);
  if (/[^\x21-\x7e]/.test(uri)) refuse(uri, 'spaces and control or non-ASCII characters must be percent-encoded');
  if (!URL.canParse(uri)) refuse(uri, 'not an absolute URI');
  const url = new URL(uri);
  const scheme = url.protocol.slice(0, -1);
  if (!SCHEME.test(scheme) || REFUSED_SCHEMES.has(scheme)) refuse(uri, `the ${scheme}: scheme cannot be a redirect`);
  if (uri.includes('#')) refuse(uri, 'a redirect URI may not have a fragment');
  if (uri.includes('*')) refuse(uri, 'wildcards are not supported; register each URI exactly');
  if (url.username || url.password) refuse(uri, 'a redirect URI may not carry a user name or password');
  if (scheme === 'http' && !LOOPBACK.has(url.hostname))
    refuse(uri, 'http is only allowed on a loopback address (127.0.0.1, [::1], localhost)');
  if (uri.length === scheme.length + 1) refuse(uri, 'nothing follows the scheme');
}

/** Whether a redirect goes to a native app (a private-use scheme) rather than a web page. */
export function opensApp(uri: string): boolean {
  const scheme = new URL(uri).protocol;
  return scheme !== 'https:' && scheme !== 'http:';
}

/**
 * Before the SDK's registration handler: its metadata schema refuses a few schemes with a
 * zod message that does not say which URI was wrong. Every URI gets our check and a refusal
 * that names it; anything else malformed is left to the SDK.
 */
export const redirectUrisChecked: RequestHandler = (req, res, next) => {
  const uris: unknown = req.method === 'POST' ? req.body?.redirect_uris : undefined;
  if (!Array.isArray(uris)) return next();
  try {
    for (const uri of uris) if (typeof uri === 'string') checkRedirectUri(uri);
    next();
  } catch (error) {
    if (!(error instanceof CustomOAuthError)) return next(error);
    res.set({ 'Access-Control-Allow-Origin': '*', 'Cache-Control': 'no-store' }).status(400).json(error.toResponseObject());
  }
};
