import type { OAuthRegisteredClientsStore } from '@modelcontextprotocol/sdk/server/auth/clients.js';
import { CustomOAuthError, InvalidClientMetadataError } from '@modelcontextprotocol/sdk/server/auth/errors.js';
import type { OAuthClientInformationFull } from '@modelcontextprotocol/sdk/shared/auth.js';
import type { Store } from '../store/store.js';
import { checkRedirectUri } from './redirect-uris.js';

const MAX_REDIRECT_URIS = 10;
const MAX_NAME = 100;

/** A client name is shown to the user on the consent page: plain, short, printable. */
function clientName(name: string | undefined): string {
  const clean = (name ?? '').replace(/[\p{Cc}\p{Cf}]/gu, '').trim();
  if (clean.length > MAX_NAME) throw new InvalidClientMetadataError(`client_name is longer than ${MAX_NAME} characters`);
  return clean || 'Unnamed app';
}

/**
 * Dynamically registered clients (RFC 7591), in the store. Every client
 * is public and proves itself with PKCE: the server stores no client secrets at all.
 */
export class OAuthClients implements OAuthRegisteredClientsStore {
  constructor(private readonly store: Store) {}

  getClient(clientId: string): Promise<OAuthClientInformationFull | undefined> {
    return this.store.oauthClients.get(clientId);
  }

  async registerClient(client: Omit<OAuthClientInformationFull, 'client_id' | 'client_id_issued_at'>): Promise<OAuthClientInformationFull> {
    const { client_id: clientId, client_id_issued_at: issuedAt } = client as OAuthClientInformationFull;
    if (!client.redirect_uris.length) throw new CustomOAuthError('invalid_redirect_uri', 'At least one redirect URI is required');
    if (client.redirect_uris.length > MAX_REDIRECT_URIS)
      throw new CustomOAuthError('invalid_redirect_uri', `At most ${MAX_REDIRECT_URIS} redirect URIs`);
    client.redirect_uris.forEach(checkRedirectUri);
    // RFC 7591 §3.2.1 lets the server replace requested metadata: public client, code grant only.
    const { client_secret: _secret, client_secret_expires_at: _expires, ...metadata } = client;
    const registered: OAuthClientInformationFull = {
      ...metadata,
      client_id: clientId,
      client_id_issued_at: issuedAt,
      client_name: clientName(client.client_name),
      token_endpoint_auth_method: 'none',
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
    };
    await this.store.oauthClients.put(registered);
    return registered;
  }
}
