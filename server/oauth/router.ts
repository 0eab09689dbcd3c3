import express, { type Router } from 'express';
import { metadataHandler } from '@modelcontextprotocol/sdk/server/auth/handlers/metadata.js';
import { clientRegistrationHandler } from '@modelcontextprotocol/sdk/server/auth/handlers/register.js';
import { revocationHandler } from '@modelcontextprotocol/sdk/server/auth/handlers/revoke.js';
import { tokenHandler } from '@modelcontextprotocol/sdk/server/auth/handlers/token.js';
import { allowedMethods } from '@modelcontextprotocol/sdk/server/auth/middleware/allowedMethods.js';
import type { Config } from '../config.js';
import { openCors } from '../http/cors.js';
import { baseUrlAsRequested } from '../http/loopback.js';
import { authorizeHandler } from './authorize.js';
import { authorizationServerMetadata, protectedResourceMetadata } from './metadata.js';
import type { OAuthServer } from './oauth-server.js';
import { redirectUrisChecked } from './redirect-uris.js';
import { registrationLimit } from './registration-limit.js';

/**
 * The SDK's handlers, each mounted at our own path (its `mcpAuthRouter` would put them at
 * the root and publish a trailing-slash issuer), plus the metadata that names those paths.
 * The authorize endpoint is ours: the SDK's redirects refusals to unvetted redirect URIs.
 */
/**
 * RFC 9728 metadata for `{base}{path}`. With a loopback base URL it names the resource as the
 * request spelled the host (`localhost`, `127.0.0.1`, `[::1]`): a client requires `resource` to
 * match the URL it was given. `authorization_servers` keeps the configured issuer, which must be
 * exactly where the client then fetches the authorization server's metadata (RFC 8414 §3.3).
 */
function resourceMetadataHandler(config: Config, path: string): Router {
  const router = express.Router();
  router.use(allowedMethods(['GET', 'OPTIONS']));
  router.get('/', (req, res) => {
    res.json(protectedResourceMetadata(config, `${baseUrlAsRequested(config.baseUrl, req.headers.host)}${path}`));
  });
  return router;
}

export function oauthRouter(config: Config, oauth: OAuthServer): Router {
  const router = express.Router();
  router.use('/.well-known/oauth-authorization-server', openCors, metadataHandler(authorizationServerMetadata(config)));
  router.use('/.well-known/oauth-protected-resource/mcp', openCors, resourceMetadataHandler(config, '/mcp'));
  router.use('/.well-known/oauth-protected-resource', openCors, resourceMetadataHandler(config, ''));
  // Redirect URIs are checked first, so a refusal names the URI (the SDK's parser skips a parsed body).
  router.use(
    '/oauth/register',
    openCors,
    registrationLimit(config.oauthRegistrationsPerHour),
    express.json(),
    redirectUrisChecked,
    clientRegistrationHandler({ clientsStore: oauth.clients, rateLimit: false }),
  );
  // The sign-in and consent forms, then the endpoint itself: a browser navigation, no CORS.
  router.use('/oauth/authorize', oauth.consent.router());
  router.use('/oauth/authorize', authorizeHandler(oauth.provider));
  router.use('/oauth/token', openCors, tokenHandler({ provider: oauth.provider }));
  router.use('/oauth/revoke', openCors, revocationHandler({ provider: oauth.provider }));
  return router;
}
