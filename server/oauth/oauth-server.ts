import type { Services } from '../services.js';
import { ClientMetadataDocuments } from './client-metadata-document.js';
import { OAuthClients } from './clients-store.js';
import { ConsentFlow } from './consent.js';
import { OAuthGrants } from './grants-store.js';
import { issuerOf } from './metadata.js';
import { QuireOAuthProvider } from './provider.js';

/** The authorization server's parts, built once per running server. */
export interface OAuthServer {
  issuer: string;
  clients: OAuthClients;
  /** Also the account area's handle: `listForUser`, `revokeGrant`. */
  grants: OAuthGrants;
  consent: ConsentFlow;
  provider: QuireOAuthProvider;
}

export function createOAuthServer(services: Services): OAuthServer {
  const issuer = issuerOf(services.config);
  const clients = new OAuthClients(services.store, ClientMetadataDocuments.forBaseUrl(services.config.baseUrl));
  const grants = new OAuthGrants(services.store, Date.now, services.log);
  const consent = new ConsentFlow(services, grants, issuer);
  const provider = new QuireOAuthProvider(services, clients, grants, consent);
  return { issuer, clients, grants, consent, provider };
}
