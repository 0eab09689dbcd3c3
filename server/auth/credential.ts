import type { Author } from '../../vault-store/vault.js';
import type { KeyScope } from '../accounts/account-store.js';

/** What an operation can require. `write` implies `capture`; neither implies the other's reads. */
export type Capability = 'read' | 'capture' | 'write';

export const MCP_SCOPES = ['mcp:read', 'mcp:capture', 'mcp:write', 'mcp'] as const;
export type McpScope = (typeof MCP_SCOPES)[number];

/** Who is calling, as every surface hands it to the operation catalog. */
export interface Credential {
  kind: 'api_key' | 'oauth' | 'session';
  user: string;
  /** Key id, OAuth grant id or session id: names the credential in commits and logs. */
  id: string;
  /** Human name: the key's name or the OAuth client's name. */
  label: string;
  capabilities: ReadonlySet<Capability>;
  /** Device keys may acknowledge change-log cursors. */
  device: boolean;
  agent?: string;
  /** The OAuth client the grant was given to (OAuth credentials only). */
  client?: string;
}

export function keyCapabilities(scope: KeyScope): Set<Capability> {
  return new Set(scope === 'write' ? ['read', 'capture', 'write'] : ['read']);
}

/** OAuth scopes → capabilities: `mcp:write` includes capture; legacy `mcp` is all three. */
export function mcpCapabilities(scopes: readonly string[]): Set<Capability> {
  const caps = new Set<Capability>();
  for (const scope of scopes) {
    if (scope === 'mcp' || scope === 'mcp:read') caps.add('read');
    if (scope === 'mcp' || scope === 'mcp:write' || scope === 'mcp:capture') caps.add('capture');
    if (scope === 'mcp' || scope === 'mcp:write') caps.add('write');
  }
  return caps;
}

/** The commit author for writes made with this credential: history shows who wrote what. */
export function authorFor(credential: Credential): Author {
  const via = credential.kind === 'api_key' ? 'key' : credential.kind === 'oauth' ? 'app' : 'account';
  const actor = `${via}:${credential.label}`;
  const trailers: Record<string, string> = { 'Quire-Actor': actor, 'Quire-Credential': credential.id };
  if (credential.agent) trailers['Quire-Agent'] = credential.agent;
  // History names the device and the OAuth client (issue 13); the actor line holds only labels.
  if (credential.device) trailers['Quire-Device'] = credential.label;
  if (credential.client) trailers['Quire-App'] = credential.client;
  return {
    name: credential.agent ? `${credential.agent} (agent, ${actor})` : `${credential.label} (${via})`,
    email: `${credential.user}@quire.invalid`,
    trailers,
  };
}
