import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { JsonFile } from '../accounts/json-file.js';
import { hashSecret, newToken, sameHash } from '../accounts/secrets.js';

const SESSION_PREFIX = 'qss_';
export const SESSION_LIFETIME_MS = 7 * 24 * 60 * 60_000;

/** A signed-in browser. The cookie holds the token; only its hash is stored. */
export interface Session {
  /** Public id: names the session in commits (Quire-Credential) and flash messages. */
  id: string;
  user: string;
  hash: string;
  /** Every form of this session carries it back (synchronizer token). */
  csrf: string;
  created_at: string;
  expires_at: number;
}

interface SessionsDoc {
  version: 1;
  sessions: Session[];
}

/**
 * Browser sessions in `<data>/sessions.json`: they survive a restart, and `quire user passwd`
 * or a new password from a sign-in link can end every session of a user.
 */
export class SessionStore {
  private readonly file: JsonFile<SessionsDoc>;

  constructor(dataDir: string, private readonly now: () => number = Date.now) {
    this.file = new JsonFile<SessionsDoc>(join(dataDir, 'sessions.json'), () => ({ version: 1, sessions: [] }));
  }

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
    await this.update((doc) => {
      doc.sessions.push(session);
    });
    return { token, session };
  }

  /** The live session for a cookie value, or undefined. */
  find(token: string | undefined): Session | undefined {
    if (!token?.startsWith(SESSION_PREFIX)) return undefined;
    const hash = hashSecret(token);
    const session = this.file.read().sessions.find((s) => sameHash(s.hash, hash));
    return session && session.expires_at > this.now() ? session : undefined;
  }

  async end(sessionId: string): Promise<void> {
    await this.update((doc) => {
      doc.sessions = doc.sessions.filter((s) => s.id !== sessionId);
    });
  }

  async endAllFor(user: string): Promise<void> {
    await this.update((doc) => {
      doc.sessions = doc.sessions.filter((s) => s.user !== user);
    });
  }

  /** Every write also drops expired sessions, so the file never grows without bound. */
  private update(change: (doc: SessionsDoc) => void): Promise<void> {
    return this.file.update((doc) => {
      change(doc);
      doc.sessions = doc.sessions.filter((s) => s.expires_at > this.now());
    });
  }
}
