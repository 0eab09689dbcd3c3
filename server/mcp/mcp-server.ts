import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, McpError } from '@modelcontextprotocol/sdk/types.js';
import type { Credential } from '../auth/credential.js';
import type { AnyOperation } from '../ops/operation.js';
import type { RateState } from '../ratelimit/limiter.js';
import type { Services } from '../services.js';
import { callTool, mcpOperations, toolDefinition } from './tools.js';

export const SERVER_INFO = { name: 'quire', title: 'Quire', version: '0.1.0' };

const INSTRUCTIONS =
  "Quire is the user's knowledge vault: markdown pages in a git repository. " +
  'Read before you edit, and pass the page hash back as base_hash so you never overwrite a change you have not seen. ' +
  'Use capture for quick notes. Failures carry a stable code in structuredContent (e.g. CONFLICT, INSUFFICIENT_SCOPE, RATE_LIMITED).';

/**
 * A fresh protocol server for one HTTP request (the transport is stateless), bound to the
 * caller's credential. The low-level `Server` is used rather than `McpServer` because
 * `McpServer` validates arguments itself before the handler runs: that would bypass the
 * order of `invoke` (plan, rate limit, scope, then schema) and lose our error codes.
 */
export function createMcpServer(
  services: Services,
  catalog: readonly AnyOperation[],
  credential: Credential,
  onRate?: (rate: RateState) => void,
): Server {
  const ops = new Map(mcpOperations(catalog).map((op) => [op.name, op]));
  const server = new Server(SERVER_INFO, { capabilities: { tools: {} }, instructions: INSTRUCTIONS });
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: [...ops.values()].map(toolDefinition) }));
  server.setRequestHandler(CallToolRequestSchema, (request) => {
    const op = ops.get(request.params.name);
    if (!op) throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${request.params.name}`);
    return callTool(services, op, credential, request.params.arguments, onRate);
  });
  return server;
}
