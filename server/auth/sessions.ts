import { randomBytes } from 'node:crypto';
import { hashSecret, newToken } from '../accounts/secrets.js';
import type { Session, Store } from '../store/store.js';

export type { Session } from '../store/store.js';

const SESSION_PREFIX = 'qss_';
export const SESSION_LIFETIME_MS = 7 * 24 * 60 * 60_000;

/**
 * Browser sessions, in the store: they survive a restart, and `quire user passwd` or a new
 * password from a sign-in link can end every session of a user.
 */
export class SessionStore {
  constructor(
    private readonly store: Store,
    private readonly now: () => number = Date.now,
  ) {}

  async create(user: string): Promise<{ token: string; session: Session }> {
    const token = newToken(SESSION_PREFIX);
    const session: Session = {
      id: `ses_${randomBytes(6).toString('hex')}`,
      user,
      hash: hashSecret(token),
      csrf: randomBytes(24).toString('base64url'),
      created_at: new Date(this.now()).toISOString(),
      expires_at: this.now() + SESSION_LIFETIME_MS,
    };
    await this.store.sessions.add(session);
    return { token, session };
  }

  /** The live session for a cookie value, or undefined. */
  async find(token: string | undefined): Promise<Session | undefined> {
    if (!token?.startsWith(SESSION_PREFIX)) return undefined;
    return this.store.sessions.byHash(hashSecret(token), this.now());
  }

  end(sessionId: string): Promise<void> {
    return this.store.sessions.remove(sessionId);
  }

  endAllFor(user: string): Promise<void> {
    return this.store.sessions.removeForUser(user);
  }
}
