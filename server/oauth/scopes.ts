import { InvalidScopeError, InvalidTargetError } from '@modelcontextprotocol/sdk/server/auth/errors.js';
import { MCP_SCOPES, type McpScope } from '../auth/credential.js';
import { asBaseSpelling } from '../http/loopback.js';

/** How each scope reads on the consent page. */
export const SCOPE_TEXT: Record<McpScope, string> = {
  'mcp:read': 'Read your pages, tags, links and search results',
  'mcp:capture': 'Add new notes under capture/',
  'mcp:write': 'Create, change, move and delete pages (includes adding notes)',
  mcp: 'Full access: read, add notes, and change or delete pages',
};

/** What a client gets offered when it asks for no scope in particular. */
export const DEFAULT_SCOPES: McpScope[] = ['mcp:read', 'mcp:capture', 'mcp:write'];

/** Accepted and granted by default: every grant gets a refresh token (see docs/mcp.md). */
export const OFFLINE_ACCESS = 'offline_access';

/** RFC 6749 §3.3: scope-token = 1*( %x21 / %x23-5B / %x5D-7E ). */
const SCOPE_TOKEN = /^[\x21\x23-\x5b\x5d-\x7e]+$/;

function isMcpScope(scope: string): scope is McpScope {
  return (MCP_SCOPES as readonly string[]).includes(scope);
}

/** The known scopes among those requested, deduplicated; a malformed one fails the request. */
function knownScopes(requested: readonly string[]): McpScope[] {
  const scopes = [...new Set(requested.filter((s) => s !== ''))];
  const malformed = scopes.find((s) => !SCOPE_TOKEN.test(s));
  if (malformed !== undefined) throw new InvalidScopeError(`Malformed scope: ${JSON.stringify(malformed)}`);
  return scopes.filter(isMcpScope);
}

/**
 * Requested scopes at authorize. Unknown ones (`openid`, `offline_access`, …) are ignored, as
 * RFC 6749 §3.3 allows; the token response's `scope` then says what was granted. No known
 * scope at all is treated like no scope: the defaults, which the user can untick.
 */
export function parseScopes(requested: readonly string[] | undefined): McpScope[] {
  const known = knownScopes(requested ?? []);
  return known.length ? known : DEFAULT_SCOPES;
}

/** Scopes asked for at a refresh: the known ones, or undefined (keep the grant's) when none is. */
export function refreshScopes(requested: readonly string[] | undefined): McpScope[] | undefined {
  const known = knownScopes(requested ?? []);
  return known.length ? known : undefined;
}

/**
 * The audience a token is bound to (RFC 8707). The MCP endpoint is the only protected
 * resource; the bare base URL (what the root protected-resource metadata names) means it
 * too. With a loopback base URL every loopback spelling is the same resource, bound as the
 * base URL spells it, so a token works on /mcp however it is reached. Anything else is
 * another server's resource.
 */
export function audienceFor(resource: URL | undefined, baseUrl: string): string | undefined {
  if (!resource) return undefined;
  const mcp = `${baseUrl}/mcp`;
  const given = asBaseSpelling(resource, baseUrl).replace(/\/$/, '');
  if (given === mcp || given === baseUrl) return mcp;
  throw new InvalidTargetError(`This server only issues tokens for ${mcp}`);
}
