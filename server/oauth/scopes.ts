import { InvalidScopeError, InvalidTargetError } from '@modelcontextprotocol/sdk/server/auth/errors.js';
import { MCP_SCOPES, type McpScope } from '../auth/credential.js';

/** How each scope reads on the consent page. */
export const SCOPE_TEXT: Record<McpScope, string> = {
  'mcp:read': 'Read your pages, tags, links and search results',
  'mcp:capture': 'Add new notes under capture/',
  'mcp:write': 'Create, change, move and delete pages (includes adding notes)',
  mcp: 'Full access: read, add notes, and change or delete pages',
};

/** What a client gets offered when it asks for no scope in particular. */
export const DEFAULT_SCOPES: McpScope[] = ['mcp:read', 'mcp:capture', 'mcp:write'];

function isMcpScope(scope: string): scope is McpScope {
  return (MCP_SCOPES as readonly string[]).includes(scope);
}

/** Requested scopes, deduplicated; an unknown one fails the whole request (RFC 6749 §4.1.2.1). */
export function parseScopes(requested: readonly string[] | undefined): McpScope[] {
  const scopes = [...new Set((requested ?? []).filter((s) => s !== ''))];
  if (scopes.length === 0) return DEFAULT_SCOPES;
  const unknown = scopes.filter((s) => !isMcpScope(s));
  if (unknown.length) throw new InvalidScopeError(`Unknown scope: ${unknown.join(' ')}`);
  return scopes as McpScope[];
}

/**
 * The audience a token is bound to (RFC 8707). The MCP endpoint is the only protected
 * resource; the bare base URL (what the root protected-resource metadata names) means it
 * too. Anything else is another server's resource.
 */
export function audienceFor(resource: URL | undefined, baseUrl: string): string | undefined {
  if (!resource) return undefined;
  const mcp = `${baseUrl}/mcp`;
  const given = resource.href.replace(/\/$/, '');
  if (given === mcp || given === baseUrl) return mcp;
  throw new InvalidTargetError(`This server only issues tokens for ${mcp}`);
}
