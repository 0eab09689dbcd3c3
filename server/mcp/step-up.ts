import type { RequestHandler } from 'express';
import type { Capability, Credential, McpScope } from '../auth/credential.js';
import type { AnyOperation } from '../ops/operation.js';
import { credentialOf, type MetadataUrlOf } from './authenticate.js';
import { mcpOperations } from './tools.js';

/** The JSON-RPC code of the 403 body: the server range, clear of the SDK's -32000/-32001. */
export const INSUFFICIENT_SCOPE_RPC = -32003;

interface ToolCall {
  id: string | number;
  name: string;
}

/** A single `tools/call` request; anything else (notifications, batches, other methods) is not ours to judge. */
function toolCallOf(body: unknown): ToolCall | undefined {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return undefined;
  const { method, id, params } = body as { method?: unknown; id?: unknown; params?: { name?: unknown } };
  if (method !== 'tools/call' || (typeof id !== 'string' && typeof id !== 'number')) return undefined;
  return typeof params?.name === 'string' ? { id, name: params.name } : undefined;
}

/**
 * The scopes to ask for: what the credential holds plus what the call needs, as few as name
 * them (`mcp:write` includes capture). SDK 1.x clients re-authorize with the challenge's scope
 * as it is, so a scope left out here would be lost by the step-up.
 */
export function challengeScopes(capabilities: ReadonlySet<Capability>, needed: Capability): McpScope[] {
  const wanted = new Set([...capabilities, needed]);
  const scopes: McpScope[] = [];
  if (wanted.has('read')) scopes.push('mcp:read');
  if (wanted.has('write')) scopes.push('mcp:write');
  else if (wanted.has('capture')) scopes.push('mcp:capture');
  return scopes;
}

function challenge(credential: Credential, op: AnyOperation, metadataUrl: string) {
  const needed = `mcp:${op.scope}`;
  const message = `${op.name} needs the ${needed} scope`;
  const header =
    `Bearer error="insufficient_scope", scope="${challengeScopes(credential.capabilities, op.scope).join(' ')}", ` +
    `resource_metadata="${metadataUrl}", error_description="${message}"`;
  return { header, message, needed };
}

/**
 * A `tools/call` beyond the credential's scopes is refused here, before the protocol server
 * and before any rate limit counts, with the spec's step-up answer (MCP authorization, "Scope
 * challenge handling"): 403 and `WWW-Authenticate: Bearer error="insufficient_scope", scope=…`,
 * from which an OAuth client re-authorizes and retries. API keys get the same answer. The body
 * is a JSON-RPC error for the request's id. `invoke` still checks the scope after this.
 */
export function scopeChallenge(catalog: readonly AnyOperation[], metadataUrlOf: MetadataUrlOf): RequestHandler {
  const tools = new Map(mcpOperations(catalog).map((op) => [op.name, op]));
  return (req, res, next) => {
    const call = toolCallOf(req.body);
    const op = call && tools.get(call.name);
    if (!call || !op) return next();
    const credential = credentialOf(req.auth);
    if (credential.capabilities.has(op.scope)) return next();
    const { header, message, needed } = challenge(credential, op, metadataUrlOf(req));
    res.setHeader('WWW-Authenticate', header);
    res.status(403).json({
      jsonrpc: '2.0',
      id: call.id,
      error: { code: INSUFFICIENT_SCOPE_RPC, message, data: { code: 'INSUFFICIENT_SCOPE', message, required_scope: needed } },
    });
  };
}
