import type { RequestHandler, Response } from 'express';

/**
 * The redirect back to the client, always naming the issuer (RFC 9207) with exactly the
 * string the metadata publishes, so a client can tell which server answered.
 */
export function authorizationResponse(redirectUri: string, issuer: string, params: Record<string, string | undefined>): string {
  const url = new URL(redirectUri);
  for (const [name, value] of Object.entries(params)) if (value !== undefined) url.searchParams.set(name, value);
  url.searchParams.set('iss', issuer);
  return url.href;
}

/**
 * The SDK's authorize handler redirects its own errors (bad PKCE method, unknown scope)
 * without `iss`; this adds it, so every response of the endpoint carries it.
 */
export function issuerOnRedirects(issuer: string): RequestHandler {
  return (_req, res, next) => {
    const redirect = res.redirect.bind(res) as (status: number, url: string) => void;
    res.redirect = ((statusOrUrl: number | string, url?: string) => {
      const [status, target] = typeof statusOrUrl === 'number' ? [statusOrUrl, url!] : [302, statusOrUrl];
      redirect(status, authorizationResponse(target, issuer, {}));
    }) as Response['redirect'];
    next();
  };
}
