import type { OAuthRegisteredClientsStore } from '@modelcontextprotocol/sdk/server/auth/clients.js';
import { CustomOAuthError, InvalidClientMetadataError } from '@modelcontextprotocol/sdk/server/auth/errors.js';
import type { OAuthClientInformationFull } from '@modelcontextprotocol/sdk/shared/auth.js';
import type { Store } from '../store/store.js';
import type { ClientMetadataDocuments } from './client-metadata-document.js';
import { isMetadataDocumentId } from './client-metadata-rules.js';
import { cleanClientName, MAX_CLIENT_NAME } from './client-name.js';
import { checkRedirectUri } from './redirect-uris.js';

const MAX_REDIRECT_URIS = 10;

/** A client name is shown to the user on the consent page: plain, short, printable. */
function clientName(name: string | undefined): string {
  const clean = cleanClientName(name);
  if (clean === undefined) throw new InvalidClientMetadataError(`client_name is longer than ${MAX_CLIENT_NAME} characters`);
  return clean;
}

/**
 * Dynamically registered clients (RFC 7591), in the store, and clients whose id is the URL
 * of their metadata document, fetched (`client-metadata-document.ts`). Every client is
 * public and proves itself with PKCE: the server stores no client secrets at all.
 */
export class OAuthClients implements OAuthRegisteredClientsStore {
  constructor(
    private readonly store: Store,
    private readonly documents: ClientMetadataDocuments,
  ) {}

  /** A metadata-document client that fails its checks throws `invalid_client` saying why. */
  getClient(clientId: string): Promise<OAuthClientInformationFull | undefined> {
    if (isMetadataDocumentId(clientId)) return this.documents.resolve(clientId);
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
