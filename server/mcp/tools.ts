import { z } from 'zod';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
  type CallToolResult,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js';
import type { Credential } from '../auth/credential.js';
import { invoke } from '../ops/invoke.js';
import type { AnyOperation } from '../ops/operation.js';
import type { RateState } from '../ratelimit/limiter.js';
import { toQuireError } from '../http/errors.js';
import type { Services } from '../services.js';
import type { McpContext } from './context.js';

/** The operations offered as tools: every catalog entry with an MCP binding. */
export function mcpOperations(catalog: readonly AnyOperation[]): AnyOperation[] {
  return catalog.filter((op) => op.mcp !== null);
}

/** One tool definition per operation, its JSON schema derived from the operation's zod input. */
export function toolDefinition(op: AnyOperation): Tool {
  // draft-07 and the input side of coercions/defaults: what the SDK's McpServer would emit.
  const inputSchema = z.toJSONSchema(op.input, { io: 'input', target: 'draft-7', unrepresentable: 'any' }) as Tool['inputSchema'];
  return {
    name: op.name,
    title: op.mcp!.title,
    description: op.description,
    inputSchema,
    annotations: { title: op.mcp!.title, ...op.mcp!.annotations },
  };
}

function asStructured(value: unknown): Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : { result: value };
}

/**
 * Runs a tool through the one door (`invoke`), so scope, plan, rate limit and input
 * validation are exactly those of REST. Every Quire failure becomes an `isError` result
 * whose structured content carries the same `{ code, message, ...details }` as a REST body.
 */
export async function callTool(
  services: Services,
  op: AnyOperation,
  credential: Credential,
  args: unknown,
  onRate?: (rate: RateState) => void,
): Promise<CallToolResult> {
  try {
    const { result } = await invoke(services, op, credential, 'mcp', args, onRate);
    return { content: [{ type: 'text', text: JSON.stringify(result) }], structuredContent: asStructured(result) };
  } catch (err) {
    const error = toQuireError(err, services.log);
    const body = error.toJSON();
    return { isError: true, content: [{ type: 'text', text: JSON.stringify(body) }], structuredContent: body };
  }
}

/** `tools/list` and `tools/call`, one tool per catalog operation with an MCP binding. */
export function registerTools(server: Server, ctx: McpContext): void {
  const ops = new Map(mcpOperations(ctx.catalog).map((op) => [op.name, op]));
  server.registerCapabilities({ tools: {} });
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: [...ops.values()].map(toolDefinition) }));
  server.setRequestHandler(CallToolRequestSchema, (request) => {
    const op = ops.get(request.params.name);
    if (!op) throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${request.params.name}`);
    return callTool(ctx.services, op, ctx.credential, request.params.arguments, ctx.onRate);
  });
}
