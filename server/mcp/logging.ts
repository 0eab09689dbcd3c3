import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { LoggingLevelSchema, SetLevelRequestSchema, type CallToolResult, type LoggingLevel } from '@modelcontextprotocol/sdk/types.js';
import type { McpContext } from './context.js';
import type { McpSession } from './sessions.js';

const rank = (level: LoggingLevel) => LoggingLevelSchema.options.indexOf(level);

/** Codes an assistant should hear about even unasked: its write did not happen for a passing reason. */
const WARNING_CODES = new Set(['VAULT_BUSY', 'RATE_LIMITED']);

/**
 * `logging/setLevel`: the level is the session's, so it applies to what follows. Without a
 * session there is nothing to remember it in, nor a stream to send messages on: `{}`.
 */
export function registerLogging(server: Server, ctx: McpContext): void {
  server.registerCapabilities({ logging: {} });
  server.setRequestHandler(SetLevelRequestSchema, (request) => {
    if (ctx.session) ctx.session.logLevel = request.params.level;
    return {};
  });
}

/** `notifications/message` on the session's stream, when the session's level lets it through. */
export function sessionLog(session: McpSession | undefined, level: LoggingLevel, data: Record<string, unknown>): void {
  if (!session || rank(level) < rank(session.logLevel)) return;
  session.notify({ jsonrpc: '2.0', method: 'notifications/message', params: { level, logger: 'quire', data } });
}

/**
 * What a tool call is worth telling the session: at debug every outcome and its time; at
 * warning a refusal the caller may retry (busy vault, rate limit), an answer the language
 * model failed to give, or results from an index behind the vault's head.
 */
export async function logToolCall(ctx: McpContext, tool: string, result: CallToolResult, ms: number): Promise<void> {
  const { session } = ctx;
  if (!session) return;
  const body = result.structuredContent ?? {};
  const took = Math.round(ms);
  if (result.isError) {
    const code = String(body.code);
    const level = code === 'INTERNAL' ? 'error' : WARNING_CODES.has(code) ? 'warning' : 'debug';
    return sessionLog(session, level, { tool, ms: took, outcome: code, message: body.message });
  }
  sessionLog(session, 'debug', { tool, ms: took, outcome: 'ok' });
  if (typeof body.llm_error === 'string') sessionLog(session, 'warning', { tool, message: body.llm_error });
  if (typeof body.indexed_commit === 'string' && rank(session.logLevel) <= rank('warning')) {
    // A vault closed since the call reopens at head: nothing to warn about, and no reason to load it.
    const workspace = ctx.services.vaults.loadedWorkspace(ctx.credential.user);
    if (!workspace) return;
    const { head, knowledge } = workspace;
    // Still behind now, not merely a read that ran while a write was landing.
    if (body.indexed_commit !== head && knowledge.indexedCommit !== head)
      sessionLog(session, 'warning', {
        tool,
        message: `Served from the index at ${body.indexed_commit}, behind the vault at ${head}; rebuild_index brings it up to date`,
      });
  }
}
