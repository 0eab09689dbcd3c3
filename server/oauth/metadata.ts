import type { OAuthMetadata, OAuthProtectedResourceMetadata } from '@modelcontextprotocol/sdk/shared/auth.js';
import { MCP_SCOPES } from '../auth/credential.js';
import type { Config } from '../config.js';
import { DEFAULT_SCOPES, OFFLINE_ACCESS } from './scopes.js';

/**
 * The issuer is the base URL exactly as configured (no trailing slash): the same string in
 * both metadata documents and in every authorization response's `iss`.
 */
export function issuerOf(config: Config): string {
  return config.baseUrl;
}

/** RFC 8414, at `/.well-known/oauth-authorization-server` (plus RFC 9207's flag). */
export function authorizationServerMetadata(config: Config): OAuthMetadata & { authorization_response_iss_parameter_supported: boolean } {
  const issuer = issuerOf(config);
  return {
    issuer,
    authorization_endpoint: `${config.authUrl}/oauth/authorize`,
    token_endpoint: `${issuer}/oauth/token`,
    registration_endpoint: `${issuer}/oauth/register`,
    revocation_endpoint: `${issuer}/oauth/revoke`,
    scopes_supported: [...MCP_SCOPES, OFFLINE_ACCESS],
    response_types_supported: ['code'],
    response_modes_supported: ['query'],
    grant_types_supported: ['authorization_code', 'refresh_token'],
    code_challenge_methods_supported: ['S256'],
    token_endpoint_auth_methods_supported: ['none'],
    revocation_endpoint_auth_methods_supported: ['none'],
    authorization_response_iss_parameter_supported: true,
    // A client_id may be the https URL of the client's metadata document (client-metadata-document.ts).
    client_id_metadata_document_supported: true,
  };
}

/**
 * RFC 9728. `resource` must be the URL the well-known suffix was derived from: the MCP
 * endpoint for `/.well-known/oauth-protected-resource/mcp`, the base URL for the root form.
 */
export function protectedResourceMetadata(config: Config, resource: string): OAuthProtectedResourceMetadata {
  return {
    resource,
    authorization_servers: [issuerOf(config)],
    scopes_supported: DEFAULT_SCOPES,
    bearer_methods_supported: ['header'],
    resource_name: 'Quire',
  };
}
