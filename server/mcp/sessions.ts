import { randomUUID } from 'node:crypto';
import type { JSONRPCNotification, LoggingLevel } from '@modelcontextprotocol/sdk/types.js';
import type { Credential } from '../auth/credential.js';
import type { EventStream } from '../http/event-stream.js';

/** Notifications kept while no stream is open (a client's reconnect gap); older ones are dropped. */
const PENDING_LIMIT = 64;

/**
 * One MCP session (`Mcp-Session-Id`): what outlives a request — the log level, the
 * subscriptions (via `onEnd` cleanups) and the GET stream notifications go out on. It
 * belongs to the user and credential (key id, OAuth grant id) that initialized it.
 */
export class McpSession {
  readonly id = randomUUID();
  /** Until the client sets one: what an assistant should hear about unasked. */
  logLevel: LoggingLevel = 'warning';
  private stream: EventStream | undefined;
  private pending: JSONRPCNotification[] = [];
  private readonly cleanups: (() => void)[] = [];
  private ended = false;

  constructor(
    /** The latest credential the session was used with (scopes may narrow on a token refresh). */
    public credential: Credential,
    public lastSeen: number,
  ) {}

  /**
   * A key's session is that key's. An OAuth session is its app's for that user: a step-up
   * (re-authorizing for a wider scope) makes a new grant, and the client keeps its session.
   */
  belongsTo(credential: Credential): boolean {
    const mine = this.credential;
    if (credential.user !== mine.user || credential.kind !== mine.kind || credential.agent !== mine.agent) return false;
    return credential.kind === 'oauth' ? credential.client !== undefined && credential.client === mine.client : credential.id === mine.id;
  }

  get streaming(): boolean {
    return this.stream !== undefined;
  }

  get isEnded(): boolean {
    return this.ended;
  }

  notify(notification: JSONRPCNotification): void {
    if (this.ended) return;
    if (this.stream) return this.stream.send('message', JSON.stringify(notification));
    this.pending.push(notification);
    if (this.pending.length > PENDING_LIMIT) this.pending.shift();
  }

  /** A new GET stream replaces the previous one: after a network drop the old socket may linger unnoticed. */
  attach(stream: EventStream, now: () => number): void {
    this.stream?.end();
    this.stream = stream;
    stream.onClose(() => {
      if (this.stream !== stream) return;
      this.stream = undefined;
      this.lastSeen = now();
    });
    const pending = this.pending;
    this.pending = [];
    for (const notification of pending) stream.send('message', JSON.stringify(notification));
  }

  /** Runs when the session ends (deleted, expired, evicted): listeners it added go with it. */
  onEnd(cleanup: () => void): void {
    if (this.ended) return cleanup();
    this.cleanups.push(cleanup);
  }

  end(): void {
    if (this.ended) return;
    this.ended = true;
    this.stream?.end();
    this.pending = [];
    for (const cleanup of this.cleanups.splice(0)) cleanup();
  }
}

export interface SessionLimits {
  /** Unused for this long (and no stream open): the session ends. */
  idleMs: number;
  perUser: number;
  max: number;
}

/**
 * The sessions this server holds, bounded in time (idle expiry) and number (per user and in
 * total, least recently used first). Protocol servers stay per request; only this outlives them.
 */
export class SessionRegistry {
  /** In order of last use: the first entry is the least recently used. */
  private readonly sessions = new Map<string, McpSession>();
  private readonly sweeper: NodeJS.Timeout;

  constructor(
    private readonly limits: SessionLimits,
    private readonly now: () => number = Date.now,
  ) {
    this.sweeper = setInterval(() => this.sweep(), Math.min(limits.idleMs, 60_000));
    this.sweeper.unref();
  }

  get size(): number {
    return this.sessions.size;
  }

  create(credential: Credential): McpSession {
    const session = new McpSession(credential, this.now());
    const mine = [...this.sessions.values()].filter((s) => s.credential.user === credential.user);
    if (mine.length >= this.limits.perUser) this.end(mine[0].id);
    if (this.sessions.size >= this.limits.max) this.end(this.sessions.keys().next().value!);
    this.sessions.set(session.id, session);
    return session;
  }

  /**
   * The caller's live session by id, marked as used; undefined when unknown, expired, or
   * another credential's (indistinguishable to the caller: all answer 404).
   */
  find(id: string, credential: Credential): McpSession | undefined {
    const session = this.sessions.get(id);
    if (!session) return undefined;
    if (this.expired(session)) {
      this.end(id);
      return undefined;
    }
    if (!session.belongsTo(credential)) return undefined;
    session.credential = credential;
    session.lastSeen = this.now();
    this.sessions.delete(id);
    this.sessions.set(id, session);
    return session;
  }

  /** The session's GET stream; while it is open the session is not idle. */
  attach(session: McpSession, stream: EventStream): void {
    session.attach(stream, this.now);
  }

  end(id: string): void {
    const session = this.sessions.get(id);
    if (!session) return;
    this.sessions.delete(id);
    session.end();
  }

  close(): void {
    clearInterval(this.sweeper);
    for (const id of [...this.sessions.keys()]) this.end(id);
  }

  private expired(session: McpSession): boolean {
    return !session.streaming && this.now() - session.lastSeen > this.limits.idleMs;
  }

  private sweep(): void {
    for (const [id, session] of this.sessions) if (this.expired(session)) this.end(id);
  }
}
