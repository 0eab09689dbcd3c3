import { z } from 'zod';
import { CustomOAuthError } from '@modelcontextprotocol/sdk/server/auth/errors.js';
import type { OAuthClientInformationFull } from '@modelcontextprotocol/sdk/shared/auth.js';
import { isLoopbackHost } from '../http/loopback.js';
import { cleanClientName, MAX_CLIENT_NAME } from './client-name.js';
import { checkRedirectUri } from './redirect-uris.js';
import type { Fetched } from './safe-fetch.js';

/**
 * What a client_id URL and the document behind it must be (draft-ietf-oauth-client-id-metadata-document
 * §3 and §4, and this server's own rules: public clients only, rule 1 for redirect URIs).
 */

const MAX_URL = 2000;
const MAX_REDIRECT_URIS = 10;

/** A refusal; its message, for the client to read, says what is wrong. */
export class MetadataRefused extends Error {}

/** Whether a client_id names a metadata document. Registered ids are UUIDs, so a URL can be nothing else. */
export function isMetadataDocumentId(clientId: string): boolean {
  return /^https?:\/\//i.test(clientId);
}

const documentSchema = z.looseObject({
  client_id: z.string(),
  redirect_uris: z.array(z.string()).min(1).max(MAX_REDIRECT_URIS),
  client_name: z.string().max(MAX_CLIENT_NAME).optional(),
  client_uri: z
    .url({ protocol: /^https?$/ })
    .max(MAX_URL)
    .optional(),
  logo_uri: z
    .url({ protocol: /^https?$/ })
    .max(MAX_URL)
    .optional(),
  token_endpoint_auth_method: z.string().optional(),
  /** Not RFC 7591, but published by clients (ChatGPT) that use one document with every server. */
  token_endpoint_auth_methods_supported: z.array(z.string()).max(20).optional(),
});

/** The draft's rules for the URL itself (§3), and ours: https, or http to loopback in loopback mode. */
export function documentUrl(clientId: string, loopbackMode: boolean): URL {
  if (clientId.length > MAX_URL) throw new MetadataRefused(`the URL is longer than ${MAX_URL} characters`);
  if (!URL.canParse(clientId)) throw new MetadataRefused('not a valid URL');
  const url = new URL(clientId);
  const loopbackHttp = url.protocol === 'http:' && loopbackMode && isLoopbackHost(url.hostname);
  if (url.protocol !== 'https:' && !loopbackHttp) throw new MetadataRefused('the URL must use https');
  if (url.username || url.password) throw new MetadataRefused('the URL may not carry a user name or password');
  if (clientId.includes('#')) throw new MetadataRefused('the URL may not have a fragment');
  if (url.pathname === '/') throw new MetadataRefused('the URL must have a path');
  // The URL is compared as a string; one the parser would rewrite (dot segments, case, default port) is ambiguous.
  if (url.href !== clientId) throw new MetadataRefused(`the URL is not in normal form (${url.href})`);
  return url;
}

/** The client a fetched document describes, once it passed every check. */
export function clientFromDocument(clientId: string, fetched: Fetched): OAuthClientInformationFull {
  if (fetched.status >= 300 && fetched.status < 400)
    throw new MetadataRefused(`answered with a redirect (HTTP ${fetched.status}); redirects are not followed`);
  if (fetched.status !== 200) throw new MetadataRefused(`answered HTTP ${fetched.status}`);
  if (!/^application\/([\w.-]+\+)?json\s*(;|$)/i.test(fetched.headers['content-type'] ?? ''))
    throw new MetadataRefused('the document is not served as application/json');
  let json: unknown;
  try {
    json = JSON.parse(fetched.body);
  } catch {
    throw new MetadataRefused('the document is not valid JSON');
  }
  const parsed = documentSchema.safeParse(json);
  if (!parsed.success) {
    const [issue] = parsed.error.issues;
    throw new MetadataRefused(`${issue.path.join('.') || 'the document'}: ${issue.message}`);
  }
  const doc = parsed.data;
  if (doc.client_id !== clientId) throw new MetadataRefused(`its client_id ${JSON.stringify(doc.client_id)} is not the document's URL`);
  if ('client_secret' in doc || 'client_secret_expires_at' in doc)
    throw new MetadataRefused('a metadata document may not carry a client secret');
  // A document naming another method it prefers but listing `none` among those it can use is
  // served as a public client, as this server's metadata asks (PKCE and exact redirect URIs).
  const method = doc.token_endpoint_auth_method ?? 'none';
  if (method !== 'none' && !doc.token_endpoint_auth_methods_supported?.includes('none'))
    throw new MetadataRefused(`token_endpoint_auth_method "${method}" is not supported: this server accepts public clients only ("none")`);
  for (const uri of doc.redirect_uris) redirectUriAllowed(uri);
  return {
    client_id: clientId,
    client_name: cleanClientName(doc.client_name, new URL(clientId).host),
    redirect_uris: doc.redirect_uris,
    ...(doc.client_uri ? { client_uri: doc.client_uri } : {}),
    ...(doc.logo_uri ? { logo_uri: doc.logo_uri } : {}),
    token_endpoint_auth_method: 'none',
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
  };
}

/** The redirect-URI policy every client obeys (rule 1), refused in this module's words. */
function redirectUriAllowed(uri: string): void {
  try {
    checkRedirectUri(uri);
  } catch (error) {
    if (error instanceof CustomOAuthError) throw new MetadataRefused(`redirect_uris: ${error.message}`);
    throw error;
  }
}
