import express, { type Router } from 'express';
import { metadataHandler } from '@modelcontextprotocol/sdk/server/auth/handlers/metadata.js';
import { clientRegistrationHandler } from '@modelcontextprotocol/sdk/server/auth/handlers/register.js';
import { revocationHandler } from '@modelcontextprotocol/sdk/server/auth/handlers/revoke.js';
import { tokenHandler } from '@modelcontextprotocol/sdk/server/auth/handlers/token.js';
import type { Config } from '../config.js';
import { authorizeHandler } from './authorize.js';
import { authorizationServerMetadata, protectedResourceMetadata } from './metadata.js';
import type { OAuthServer } from './oauth-server.js';
import { redirectUrisChecked } from './redirect-uris.js';

/**
 * The SDK's handlers, each mounted at our own path (its `mcpAuthRouter` would put them at
 * the root and publish a trailing-slash issuer), plus the metadata that names those paths.
 * The authorize endpoint is ours: the SDK's redirects refusals to unvetted redirect URIs.
 */
export function oauthRouter(config: Config, oauth: OAuthServer): Router {
  const router = express.Router();
  router.use('/.well-known/oauth-authorization-server', metadataHandler(authorizationServerMetadata(config)));
  router.use('/.well-known/oauth-protected-resource/mcp', metadataHandler(protectedResourceMetadata(config, `${config.baseUrl}/mcp`)));
  router.use('/.well-known/oauth-protected-resource', metadataHandler(protectedResourceMetadata(config, config.baseUrl)));
  // 20 registrations per hour per address (the SDK's default), stated so it is visible here.
  // Redirect URIs are checked first, so a refusal names the URI (the SDK's parser skips a parsed body).
  router.use(
    '/oauth/register',
    express.json(),
    redirectUrisChecked,
    clientRegistrationHandler({ clientsStore: oauth.clients, rateLimit: { windowMs: 60 * 60_000, max: 20 } }),
  );
  // The sign-in and consent forms, then the endpoint itself.
  router.use('/oauth/authorize', oauth.consent.router());
  router.use('/oauth/authorize', authorizeHandler(oauth.provider));
  router.use('/oauth/token', tokenHandler({ provider: oauth.provider }));
  router.use('/oauth/revoke', revocationHandler({ provider: oauth.provider }));
  return router;
}
