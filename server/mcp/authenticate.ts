import type { Request, RequestHandler } from 'express';
import { InvalidTokenError } from '@modelcontextprotocol/sdk/server/auth/errors.js';
import { requireBearerAuth } from '@modelcontextprotocol/sdk/server/auth/middleware/bearerAuth.js';
import type { OAuthTokenVerifier } from '@modelcontextprotocol/sdk/server/auth/provider.js';
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import { credentialForKey, looksLikeApiKey } from '../auth/api-key.js';
import type { Credential } from '../auth/credential.js';
import type { Services } from '../services.js';
import { DEFAULT_SCOPES } from '../oauth/scopes.js';

/** API keys are checked on every request; this only satisfies the SDK's expiry check. */
const KEY_CHECK_SECONDS = 60;

/**
 * The verifier behind the SDK's `requireBearerAuth` on /mcp: personal API keys and OAuth
 * access tokens both end up as a `Credential` in `authInfo.extra.credential`.
 */
export function credentialVerifier(services: Services, oauth: OAuthTokenVerifier, resource: string): OAuthTokenVerifier {
  return {
    async verifyAccessToken(token: string): Promise<AuthInfo> {
      if (!looksLikeApiKey(token)) return oauth.verifyAccessToken(token);
      const credential = await credentialForKey(services, token);
      if (!credential) throw new InvalidTokenError('Unknown or revoked API key');
      return {
        token,
        clientId: credential.id,
        scopes: [...credential.capabilities].map((c) => `mcp:${c}`),
        expiresAt: Math.floor(Date.now() / 1000) + KEY_CHECK_SECONDS,
        resource: new URL(resource),
        extra: { credential },
      };
    },
  };
}

/** Checks the request's token again (`OpContext.recheck`): false once it is revoked, expired or its user gone. */
export function recheckOf(verifier: OAuthTokenVerifier, token: string): () => Promise<boolean> {
  return () =>
    verifier.verifyAccessToken(token).then(
      () => true,
      (err: unknown) => (err instanceof InvalidTokenError ? false : Promise.reject(err)),
    );
}

export function credentialOf(auth: AuthInfo | undefined): Credential {
  const credential = auth?.extra?.credential as Credential | undefined;
  if (!credential) throw new Error('requireBearerAuth did not run');
  return credential;
}

function unauthorized(res: Parameters<RequestHandler>[1], header: string, description: string): void {
  res.setHeader('WWW-Authenticate', header);
  res.status(401).json({ error: 'invalid_token', error_description: description });
}

/**
 * The protected-resource metadata URL a challenge names, per request: with a loopback base
 * URL it follows the loopback spelling the client used, since the client then requires the
 * metadata's `resource` to match the URL it was given.
 */
export type MetadataUrlOf = (req: Request) => string;

/**
 * Before `bearerAuth`: a request with no credentials gets the bare challenge that
 * starts OAuth discovery, and `?token=` is accepted for API keys only (for clients that
 * cannot set headers). An OAuth token in a URL would leak into logs and history: refused.
 */
export function credentialsPresent(metadataUrlOf: MetadataUrlOf): RequestHandler {
  return (req, res, next) => {
    const resourceMetadataUrl = metadataUrlOf(req);
    const query = req.query.token;
    const header = req.headers.authorization;
    if (query === undefined) {
      // The scopes tell a client what to ask for when it starts authorization from this challenge.
      if (!header)
        return unauthorized(
          res,
          `Bearer resource_metadata="${resourceMetadataUrl}", scope="${DEFAULT_SCOPES.join(' ')}"`,
          'Authentication required',
        );
      return next();
    }
    const challenge = (description: string) =>
      `Bearer error="invalid_request", error_description="${description}", resource_metadata="${resourceMetadataUrl}"`;
    if (header) {
      const description = 'Send credentials in one place: the Authorization header or ?token=, not both';
      res.setHeader('WWW-Authenticate', challenge(description));
      res.status(400).json({ error: 'invalid_request', error_description: description });
      return;
    }
    if (typeof query !== 'string' || !looksLikeApiKey(query)) {
      const description = 'Only personal API keys may be sent as ?token=; send OAuth access tokens in the Authorization header';
      return unauthorized(res, challenge(description), description);
    }
    req.headers.authorization = `Bearer ${query}`;
    next();
  };
}

/**
 * The SDK's `requireBearerAuth`, its challenges naming the metadata URL as this request spelled
 * the host. The audience is one `expectedResource` however the host is spelled: tokens are bound
 * to the base URL's spelling whichever one the client asked for (`audienceFor`), and API keys
 * report it too.
 */
export function bearerAuth(verifier: OAuthTokenVerifier, expectedResource: URL, metadataUrlOf: MetadataUrlOf): RequestHandler {
  return (req, res, next) => requireBearerAuth({ verifier, expectedResource, resourceMetadataUrl: metadataUrlOf(req) })(req, res, next);
}
