import { setImmediate as nextTurn } from 'node:timers/promises';
import { QuireError } from '../../vault-store/errors.js';

/** How long shutdown waits for live connections to finish before the sockets are cut. */
const SHUTDOWN_WAIT_MS = 2000;

/** How often the account store is asked whether it changed, while connections are open. */
const CHECK_EVERY_MS = 200;

/** Who holds a connection: the user, and how to authenticate its request again. */
export interface LiveCaller {
  user: string;
  recheck?: () => Promise<boolean>;
}

/**
 * Makes the connection finish now: a stream ends, a long-poll answers with what it has. With
 * a reason (its credential was revoked), a stream says so first and a long-poll fails with it.
 */
export type CloseConnection = (reason?: QuireError) => void;

interface Connection extends LiveCaller {
  close: CloseConnection;
  /** Closed, finishing: no longer counted against the cap. */
  closing: boolean;
  /** The store's stamp when its credential was last checked; none yet when it opens. */
  checkedAt?: string;
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
  /** Runs while connections are open: see `recheck`. */
  private checks: NodeJS.Timeout | undefined;
  private checking = false;

  /**
   * `storeStamp` is the account store's change stamp (`Store.changeStamp`): it moves on every
   * write, this process's at once and the CLI's within a tenth of a second.
   */
  constructor(
    private readonly perUser: number,
    private readonly storeStamp: () => string,
  ) {}

  /** Counts a connection of `caller.user` (closing its oldest when over the cap); call the result when it has finished. */
  open(caller: LiveCaller, close: CloseConnection): () => void {
    const connection: Connection = { user: caller.user, recheck: caller.recheck, close, closing: false };
    let set = this.byUser.get(connection.user);
    if (!set) this.byUser.set(connection.user, (set = new Set()));
    set.add(connection);
    if (this.stopping) this.closeOne(connection);
    const open = [...set].filter((c) => !c.closing);
    for (const oldest of open.slice(0, Math.max(0, open.length - this.perUser))) this.closeOne(oldest);
    if (!this.checks) {
      this.checks = setInterval(() => void this.recheck(), CHECK_EVERY_MS);
      this.checks.unref();
    }
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

  private closeOne(connection: Connection, reason?: QuireError): void {
    if (connection.closing) return;
    connection.closing = true;
    connection.close(reason);
  }

  /**
   * A connection was authenticated when it opened and may live for minutes: once the account
   * store has changed (a key revoked, an app disconnected, a user deleted — whoever did it),
   * each connection authenticates its request again and those that fail are closed. A new
   * connection is checked once too: a revocation may have come between its request's check and
   * its opening. A check that cannot be made (the store failing) leaves the connection open.
   */
  private async recheck(): Promise<void> {
    if (this.checking) return;
    const stamp = this.storeStamp();
    const due = [...this.byUser.values()].flatMap((set) => [...set]).filter((c) => !c.closing && c.recheck && c.checkedAt !== stamp);
    if (due.length === 0) return;
    this.checking = true;
    for (const connection of due) connection.checkedAt = stamp;
    try {
      const valid = await Promise.all(due.map((c) => c.recheck!().catch(() => true)));
      due.forEach((connection, i) => {
        if (!valid[i]) this.closeOne(connection, new QuireError('UNAUTHENTICATED', 'The credential of this connection was revoked'));
      });
    } finally {
      this.checking = false;
    }
  }

  private finished(connection: Connection): void {
    const set = this.byUser.get(connection.user);
    if (!set?.delete(connection)) return;
    if (set.size === 0) this.byUser.delete(connection.user);
    if (this.byUser.size > 0) return;
    clearInterval(this.checks);
    this.checks = undefined;
    this.drained?.();
  }
}
