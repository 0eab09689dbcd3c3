import type { Response } from 'express';
import { InvalidTokenError } from '@modelcontextprotocol/sdk/server/auth/errors.js';
import type { AuthorizationParams, OAuthServerProvider } from '@modelcontextprotocol/sdk/server/auth/provider.js';
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import type { OAuthClientInformationFull, OAuthTokenRevocationRequest, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import { mcpCapabilities, type Credential } from '../auth/credential.js';
import type { Services } from '../services.js';
import type { OAuthClients } from './clients-store.js';
import type { ConsentFlow } from './consent.js';
import type { OAuthGrants } from './grants-store.js';
import { audienceFor, refreshScopes } from './scopes.js';

/**
 * The port between the OAuth handlers and our storage. The handlers check client ids,
 * redirect URIs, the PKCE method (authorize.ts) and the verifier (the SDK's token handler);
 * this decides everything else.
 */
export class QuireOAuthProvider implements OAuthServerProvider {
  constructor(
    private readonly services: Services,
    private readonly clients: OAuthClients,
    private readonly grants: OAuthGrants,
    private readonly consent: ConsentFlow,
  ) {}

  get clientsStore(): OAuthClients {
    return this.clients;
  }

  async authorize(client: OAuthClientInformationFull, params: AuthorizationParams, res: Response): Promise<void> {
    this.consent.begin(client, params, res);
  }

  challengeForAuthorizationCode(client: OAuthClientInformationFull, code: string): Promise<string> {
    return this.grants.codeChallenge(client.client_id, code);
  }

  exchangeAuthorizationCode(
    client: OAuthClientInformationFull,
    code: string,
    _verifier?: string,
    redirectUri?: string,
    resource?: URL,
  ): Promise<OAuthTokens> {
    return this.grants.exchangeCode(client.client_id, code, redirectUri, audienceFor(resource, this.services.config.baseUrl));
  }

  exchangeRefreshToken(client: OAuthClientInformationFull, refreshToken: string, scopes?: string[], resource?: URL): Promise<OAuthTokens> {
    return this.grants.refresh(client.client_id, refreshToken, refreshScopes(scopes), audienceFor(resource, this.services.config.baseUrl));
  }

  /** An access token as the `Credential` every operation understands (`extra.credential`). */
  async verifyAccessToken(token: string): Promise<AuthInfo> {
    const access = await this.grants.verifyAccess(token);
    if (!access || !(await this.services.accounts.user(access.grant.user)))
      throw new InvalidTokenError('Unknown, expired or revoked access token');
    const { grant } = access;
    const credential: Credential = {
      kind: 'oauth',
      user: grant.user,
      id: grant.id,
      label: grant.client_name,
      capabilities: mcpCapabilities(access.scopes),
      device: false,
      client: grant.client_id,
      ...(grant.agent ? { agent: grant.agent } : {}),
    };
    return {
      token,
      clientId: grant.client_id,
      scopes: access.scopes,
      expiresAt: Math.floor(access.expiresAt / 1000),
      resource: new URL(grant.resource),
      extra: { credential },
    };
  }

  revokeToken(client: OAuthClientInformationFull, request: OAuthTokenRevocationRequest): Promise<void> {
    return this.grants.revokeToken(client.client_id, request.token);
  }
}
