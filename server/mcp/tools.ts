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
import { ERROR_CODES } from '../../vault-store/errors.js';
import type { Credential } from '../auth/credential.js';
import { invoke, type InvokeOptions } from '../ops/invoke.js';
import type { AnyOperation } from '../ops/operation.js';
import { toQuireError } from '../http/errors.js';
import type { Services } from '../services.js';
import type { McpContext } from './context.js';
import { logToolCall } from './logging.js';
import { progressReporter } from './progress.js';

/** The operations offered as tools: every catalog entry with an MCP binding. */
export function mcpOperations(catalog: readonly AnyOperation[]): AnyOperation[] {
  return catalog.filter((op) => op.mcp !== null);
}

/**
 * What tools/list shows a credential. An OAuth token sees every tool: a grant without
 * `mcp:write` must still discover `write_page` and be challenged for the scope (step-up, see
 * step-up.ts). An API key cannot be upgraded that way, so it sees only what it may call.
 */
export function listedFor(credential: Credential, ops: Iterable<AnyOperation>): AnyOperation[] {
  const all = [...ops];
  return credential.kind === 'oauth' ? all : all.filter((op) => credential.capabilities.has(op.scope));
}

/** The REST error body, which an `isError` result carries as its structured content. */
const errorBody = z
  .object({ code: z.enum(ERROR_CODES), message: z.string() })
  .catchall(z.unknown())
  .describe('With isError: the failure, as the REST error body (code, message and details such as current_hash)');

/** An operation's result as `asStructured` sends it: an object as it is, anything else as `{ result }`. */
function structuredOutput(op: AnyOperation): z.ZodType {
  if (!op.output) throw new Error(`${op.name} has an MCP binding but no output schema`);
  return op.output instanceof z.ZodObject ? op.output : z.object({ result: op.output });
}

/** The JSON Schema options of both sides: draft-07, what the SDK's McpServer emits and its client validates with. */
const jsonSchema = (schema: z.ZodType, io: 'input' | 'output'): Record<string, unknown> =>
  z.toJSONSchema(schema, { io, target: 'draft-7', unrepresentable: 'any' });

/**
 * The tool's `outputSchema`: its result, or the error body. SDK 1.x clients validate the
 * structured content of `isError` results too (typescript-sdk#1943), so a schema of the result
 * alone would turn every failure into a client-side validation error.
 */
export function outputSchema(op: AnyOperation): Tool['outputSchema'] {
  return { ...jsonSchema(z.union([structuredOutput(op), errorBody]), 'output'), type: 'object' } as Tool['outputSchema'];
}

/** The schema a successful call's structured content follows (the first branch of `outputSchema`). */
export function resultSchema(op: AnyOperation): Record<string, unknown> {
  return jsonSchema(structuredOutput(op), 'output');
}

/** Tool definitions are derived once per operation: every tools/list would otherwise convert every schema. */
const definitions = new WeakMap<AnyOperation, Tool>();

/** One tool definition per operation, its JSON schemas derived from the operation's zod input and output. */
export function toolDefinition(op: AnyOperation): Tool {
  const known = definitions.get(op);
  if (known) return known;
  const tool: Tool = {
    name: op.name,
    title: op.mcp!.title,
    description: op.description,
    // The input side of coercions and defaults: what a caller sends.
    inputSchema: jsonSchema(op.input, 'input') as Tool['inputSchema'],
    outputSchema: outputSchema(op),
    annotations: { title: op.mcp!.title, ...op.mcp!.annotations },
  };
  definitions.set(op, tool);
  return tool;
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
  options: InvokeOptions = {},
): Promise<CallToolResult> {
  try {
    const { result } = await invoke(services, op, credential, 'mcp', args, options);
    const shaped = op.mcp?.toolResult?.(result);
    if (shaped) return shaped;
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
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: listedFor(ctx.credential, ops.values()).map(toolDefinition) }));
  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const op = ops.get(request.params.name);
    if (!op) throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${request.params.name}`);
    const started = performance.now();
    const result = await callTool(ctx.services, op, ctx.credential, request.params.arguments, {
      onRate: ctx.onRate,
      progress: progressReporter(extra),
      signal: extra.signal,
      recheck: ctx.recheck,
    });
    logToolCall(ctx, op.name, result, performance.now() - started).catch((err) =>
      ctx.services.log.error({ err: (err as Error).message }, 'mcp log failed'),
    );
    return result;
  });
}
