import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import type { ErrorCode as QuireCode, QuireError } from '../../vault-store/errors.js';
import { toQuireError } from '../http/errors.js';
import { invoke } from '../ops/invoke.js';
import type { McpContext } from './context.js';

/** The spec's code for a `resources/read` of a URI the server does not have. */
export const RESOURCE_NOT_FOUND = -32002;

/** Codes that say the request's own arguments were wrong (a bad path, cursor or commit). */
const CALLER_INPUT = new Set<QuireCode>(['INVALID_REQUEST', 'INVALID_PATH', 'INVALID_CURSOR', 'CURSOR_UNKNOWN']);

/**
 * A Quire failure as a JSON-RPC error for the methods that are not tools (they have no
 * `isError` result): the caller's input at fault → Invalid params, anything else (scope,
 * plan, rate limit, busy) → Internal error; `data` is always the REST error body, so the
 * stable code survives. `notFound` lets a method answer NOT_FOUND its own way.
 */
export function rpcError(error: QuireError, notFound?: (error: QuireError) => McpError): McpError {
  if (error.code === 'NOT_FOUND' && notFound) return notFound(error);
  const code = CALLER_INPUT.has(error.code) ? ErrorCode.InvalidParams : ErrorCode.InternalError;
  return new McpError(code, error.message, error.toJSON());
}

/**
 * Runs the catalog operation `name` through the one door (`invoke`), as the MCP surface, so
 * resources, prompts and completions get the plan, rate limit, scope, input schema and
 * agent filtering of the tools. Operations are looked up in the context's catalog, never
 * imported, so the catalog stays the one list.
 */
export async function callOp<R>(
  ctx: McpContext,
  name: string,
  input: Record<string, unknown>,
  notFound?: (error: QuireError) => McpError,
): Promise<R> {
  const op = ctx.catalog.find((o) => o.name === name);
  if (!op) throw new Error(`No operation ${name} in the catalog`);
  try {
    return (await invoke(ctx.services, op, ctx.credential, 'mcp', input, { onRate: ctx.onRate })).result as R;
  } catch (err) {
    throw rpcError(toQuireError(err, ctx.services.log), notFound);
  }
}
