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
 * without `iss`, and without `state` when the request failed its schema; this adds both,
 * so every response of the endpoint names the issuer and returns the client's state.
 */
export function issuerOnRedirects(issuer: string): RequestHandler {
  return (req, res, next) => {
    const redirect = res.redirect.bind(res) as (status: number, url: string) => void;
    res.redirect = ((statusOrUrl: number | string, url?: string) => {
      const [status, target] = typeof statusOrUrl === 'number' ? [statusOrUrl, url!] : [302, statusOrUrl];
      // Read at redirect time: a POSTed form is parsed only inside the SDK's router.
      const params = (req.method === 'POST' ? req.body : req.query) as Record<string, unknown> | undefined;
      const state = typeof params?.state === 'string' && !new URL(target).searchParams.has('state') ? params.state : undefined;
      redirect(status, authorizationResponse(target, issuer, { state }));
    }) as Response['redirect'];
    next();
  };
}
