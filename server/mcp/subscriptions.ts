import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { ErrorCode, McpError, SubscribeRequestSchema, UnsubscribeRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { QuireError } from '../../vault-store/errors.js';
import { normalizePagePath } from '../../vault-store/paths.js';
import type { CommitEvent } from '../../vault-store/vault.js';
import type { Credential } from '../auth/credential.js';
import { toQuireError } from '../http/errors.js';
import { withinPrefixes } from '../ops/agent-gate.js';
import { checkPlan } from '../ops/invoke.js';
import type { Services } from '../services.js';
import { RESOURCE_NOT_FOUND, rpcError } from './call-op.js';
import type { McpContext } from './context.js';
import { pathOfUri } from './resources.js';
import type { McpSession } from './sessions.js';

/** Pages one session may watch at once: subscriptions live in memory. */
const MAX_SUBSCRIPTIONS = 256;

/** Who may hear about a path, decided when a change is announced (an agent's folders may have changed). */
async function readableBy(services: Services, credential: Credential): Promise<(path: string) => boolean> {
  if (!credential.capabilities.has('read')) return () => false;
  if (!credential.agent) return () => true;
  const agent = await services.agents.get(credential.user, credential.agent);
  return agent ? (path) => withinPrefixes(path, agent.read) : () => false;
}

/**
 * One session's page subscriptions: one commit listener on the user's vaults (the registry's,
 * which outlives the vault being closed and reopened, and keeps no vault loaded) while any
 * exist, removed with the last one and when the session ends. Every commit reaches it — API
 * writes, folder edits the watcher commits, pushes, outside commits the vault follows.
 */
class PageSubscriptions {
  /** Path → the URI as the client spelled it, which its notifications repeat. */
  private readonly uris = new Map<string, string>();
  private stopListening: (() => void) | undefined;

  constructor(
    private readonly session: McpSession,
    private readonly services: Services,
  ) {
    session.onEnd(() => {
      this.uris.clear();
      this.stop();
    });
  }

  add(path: string, uri: string): void {
    if (!this.uris.has(path) && this.uris.size >= MAX_SUBSCRIPTIONS)
      throw new McpError(ErrorCode.InvalidRequest, `A session may subscribe to at most ${MAX_SUBSCRIPTIONS} pages`);
    // An ended session keeps nothing: its end ran already and would not remove the listener.
    if (this.session.isEnded) return;
    this.uris.set(path, uri);
    this.stopListening ??= this.services.vaults.onCommit(this.session.credential.user, (event) => this.changed(event));
  }

  remove(path: string): void {
    this.uris.delete(path);
    if (this.uris.size === 0) this.stop();
  }

  private stop(): void {
    this.stopListening?.();
    this.stopListening = undefined;
  }

  /** Inside the vault's write queue: only picks the paths, the announcing happens after. */
  private changed(event: CommitEvent): void {
    const paths = event.changes.map((c) => c.path).filter((p) => this.uris.has(p));
    if (paths.length) setImmediate(() => void this.announce(paths).catch(() => undefined));
  }

  private async announce(paths: string[]): Promise<void> {
    const readable = await readableBy(this.services, this.session.credential);
    for (const path of paths) {
      const uri = this.uris.get(path);
      if (uri !== undefined && readable(path))
        this.session.notify({ jsonrpc: '2.0', method: 'notifications/resources/updated', params: { uri } });
    }
  }
}

const bySession = new WeakMap<McpSession, PageSubscriptions>();

function sessionOf(ctx: McpContext, method: string): McpSession {
  if (!ctx.session)
    throw new McpError(
      ErrorCode.InvalidRequest,
      `${method} needs a session: send initialize without Mcp-Session-Id, then the Mcp-Session-Id it returns, and open the GET stream`,
    );
  return ctx.session;
}

/**
 * The page a URI names, if the caller may hear about it: a page URI, read scope, the plan's
 * MCP access, and within an agent's read folders. A page that does not exist yet may be
 * watched (its creation is an update); one the caller may not read is "not found", as on read.
 */
async function watchablePath(ctx: McpContext, uri: string): Promise<string> {
  const notFound = () => new McpError(RESOURCE_NOT_FOUND, 'Resource not found', { uri });
  const raw = pathOfUri(uri);
  if (raw === undefined) throw new McpError(ErrorCode.InvalidParams, 'Only page URIs (quire://page/{path}) can be subscribed to', { uri });
  try {
    const { credential, services } = ctx;
    const plan = await checkPlan(services, credential, 'mcp');
    ctx.onRate?.(await services.limiter.consume(credential.user, 'read', plan));
    if (!credential.capabilities.has('read'))
      throw new QuireError('INSUFFICIENT_SCOPE', 'resources/subscribe needs the mcp:read scope', { required_scope: 'mcp:read' });
    const path = normalizePagePath(raw);
    if (!(await readableBy(services, credential))(path)) throw notFound();
    return path;
  } catch (err) {
    if (err instanceof McpError) throw err;
    throw rpcError(toQuireError(err, ctx.services.log));
  }
}

/** `resources/subscribe` and `resources/unsubscribe` on pages, held by the session. */
export function registerSubscriptions(server: Server, ctx: McpContext): void {
  server.registerCapabilities({ resources: { subscribe: true } });
  server.setRequestHandler(SubscribeRequestSchema, async (request) => {
    const session = sessionOf(ctx, 'resources/subscribe');
    const path = await watchablePath(ctx, request.params.uri);
    let subscriptions = bySession.get(session);
    if (!subscriptions) bySession.set(session, (subscriptions = new PageSubscriptions(session, ctx.services)));
    subscriptions.add(path, request.params.uri);
    return {};
  });
  server.setRequestHandler(UnsubscribeRequestSchema, (request) => {
    const session = sessionOf(ctx, 'resources/unsubscribe');
    const path = pathOfUri(request.params.uri);
    if (path !== undefined) bySession.get(session)?.remove(normalizePathOrSelf(path));
    return {};
  });
}

/** Unsubscribing from something never subscribed is a no-op, whatever its spelling. */
function normalizePathOrSelf(path: string): string {
  try {
    return normalizePagePath(path);
  } catch {
    return path;
  }
}
