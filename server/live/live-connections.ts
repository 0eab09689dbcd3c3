import { setImmediate as nextTurn } from 'node:timers/promises';

/** How long shutdown waits for live connections to finish before the sockets are cut. */
const SHUTDOWN_WAIT_MS = 2000;

interface Connection {
  user: string;
  /** Makes the connection finish now: a stream ends, a long-poll answers with what it has. */
  close: () => void;
  /** Closed, finishing: no longer counted against the cap. */
  closing: boolean;
}

/**
 * The live change connections (`GET /vault/events` streams and `GET /vault/changes?wait=`
 * long-polls), capped per user: a new one over the cap closes the user's oldest, as a new MCP
 * session ends the least recently used. A client that lost its network keeps a socket the
 * server has not noticed yet; refusing the reconnect would lock it out until the heartbeat finds
 * the dead one. On shutdown every connection is closed and given a moment to finish cleanly.
 */
export class LiveConnections {
  /** Per user, in the order they opened. */
  private readonly byUser = new Map<string, Set<Connection>>();
  private stopping = false;
  private drained: (() => void) | undefined;

  constructor(private readonly perUser: number) {}

  /** Counts a connection of `user` (closing its oldest when over the cap); call the result when it has finished. */
  open(user: string, close: () => void): () => void {
    const connection: Connection = { user, close, closing: false };
    let set = this.byUser.get(user);
    if (!set) this.byUser.set(user, (set = new Set()));
    set.add(connection);
    if (this.stopping) this.closeOne(connection);
    const open = [...set].filter((c) => !c.closing);
    for (const oldest of open.slice(0, Math.max(0, open.length - this.perUser))) this.closeOne(oldest);
    return () => this.finished(connection);
  }

  /** Connections of `user` not yet finished. */
  count(user: string): number {
    return this.byUser.get(user)?.size ?? 0;
  }

  /** Shutdown: closes every connection, then waits (a little) until each has finished its response. */
  async close(): Promise<void> {
    this.stopping = true;
    if (this.byUser.size === 0) return;
    const drained = new Promise<void>((resolve) => (this.drained = resolve));
    for (const set of this.byUser.values()) for (const connection of [...set]) this.closeOne(connection);
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([drained, new Promise((resolve) => (timer = setTimeout(resolve, SHUTDOWN_WAIT_MS)))]);
    clearTimeout(timer);
    // A long-poll finishes when its handler returns; its answer is written on the next turns.
    await nextTurn();
  }

  private closeOne(connection: Connection): void {
    if (connection.closing) return;
    connection.closing = true;
    connection.close();
  }

  private finished(connection: Connection): void {
    const set = this.byUser.get(connection.user);
    if (!set?.delete(connection)) return;
    if (set.size === 0) this.byUser.delete(connection.user);
    if (this.byUser.size === 0) this.drained?.();
  }
}
