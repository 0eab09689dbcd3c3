import type { Database } from 'better-sqlite3';
import type { Session, SessionsStore, SigninLink, SigninLinksStore } from '../store.js';

/** Browser sessions and one-time sign-in links: expiry is part of every query. */
export function sqliteBrowser(db: Database): { sessions: SessionsStore; signinLinks: SigninLinksStore } {
  const q = {
    addSession: db.prepare(
      'INSERT INTO sessions (id, user, hash, csrf, created_at, expires_at) VALUES (@id, @user, @hash, @csrf, @created_at, @expires_at)',
    ),
    session: db.prepare<[string, number], Session>('SELECT * FROM sessions WHERE hash = ? AND expires_at > ?'),
    endSession: db.prepare('DELETE FROM sessions WHERE id = ?'),
    endSessionsOf: db.prepare('DELETE FROM sessions WHERE user = ?'),
    dropLinksOf: db.prepare('DELETE FROM signin_links WHERE user = ?'),
    addLink: db.prepare('INSERT INTO signin_links (hash, user, expires_at) VALUES (@hash, @user, @expires_at)'),
    link: db.prepare<[string, number], SigninLink>('SELECT * FROM signin_links WHERE hash = ? AND expires_at > ?'),
    takeLink: db.prepare<[string, number], SigninLink>('DELETE FROM signin_links WHERE hash = ? AND expires_at > ? RETURNING *'),
  };
  const replaceLink = db.transaction((link: SigninLink) => {
    q.dropLinksOf.run(link.user);
    q.addLink.run(link);
  });
  return {
    sessions: {
      add: async (session) => {
        q.addSession.run(session);
      },
      byHash: async (hash, now) => q.session.get(hash, now),
      remove: async (id) => {
        q.endSession.run(id);
      },
      removeForUser: async (user) => {
        q.endSessionsOf.run(user);
      },
    },
    signinLinks: {
      replaceForUser: async (link) => {
        replaceLink.immediate(link);
      },
      byHash: async (hash, now) => q.link.get(hash, now),
      take: async (hash, now) => q.takeLink.get(hash, now),
    },
  };
}
