import Database from 'better-sqlite3';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { OTHER_WRITERS_SEEN_MS, type Store } from '../store.js';
import { sqliteAccounts } from './accounts.js';
import { sqliteAgents } from './agents.js';
import { sqliteBrowser } from './browser.js';
import { importJsonFiles } from './json-import.js';
import { sqliteOAuth } from './oauth.js';
import { SCHEMA_STEPS } from './schema.js';
import { sqliteSigninFailures } from './signin-failures.js';

export const DATABASE_FILE = 'quire.db';

/** How long a write waits for another process (the CLI, or the server) to finish its own. */
const BUSY_TIMEOUT_MS = 5_000;

/**
 * The store in `<data>/quire.db`, shared by the server and the CLI. WAL lets readers go on
 * while one connection writes, and the busy timeout makes a second writer wait its turn
 * instead of failing. On first open, the JSON files of earlier versions are imported.
 */
export function openSqliteStore(dataDir: string): Store {
  mkdirSync(dataDir, { recursive: true });
  const db = new Database(join(dataDir, DATABASE_FILE), { timeout: BUSY_TIMEOUT_MS });
  db.pragma('journal_mode = WAL');
  db.pragma('foreign_keys = ON');
  // WAL with NORMAL loses at most the last transactions on power loss, never consistency.
  db.pragma('synchronous = NORMAL');
  db.transaction(() => {
    const version = db.pragma('user_version', { simple: true }) as number;
    if (version >= SCHEMA_STEPS.length) return;
    for (const step of SCHEMA_STEPS.slice(version)) db.exec(step);
    db.pragma(`user_version = ${SCHEMA_STEPS.length}`);
  }).immediate();
  importJsonFiles(db, dataDir);
  const { users, keys, deviceCursors, server } = sqliteAccounts(db);
  const { sessions, signinLinks } = sqliteBrowser(db);
  const { oauthClients, grants } = sqliteOAuth(db);
  const purge = [
    db.prepare('DELETE FROM sessions WHERE expires_at <= ?'),
    db.prepare('DELETE FROM signin_links WHERE expires_at <= ?'),
    db.prepare('DELETE FROM signin_failures WHERE resets_at <= ?'),
    db.prepare('DELETE FROM oauth_codes WHERE expires_at <= ?'),
    db.prepare('DELETE FROM oauth_tokens WHERE expires_at <= ?'),
    db.prepare(
      'DELETE FROM oauth_grants WHERE NOT EXISTS (SELECT 1 FROM oauth_tokens t WHERE t.grant_id = oauth_grants.id AND t.expires_at > ?)',
    ),
  ];
  const ownChanges = db.prepare('SELECT total_changes()').pluck();
  // data_version moves on other connections' commits; reading it costs as much as a key
  // lookup, so it is read at most every OTHER_WRITERS_SEEN_MS (total_changes is ~1 µs).
  const dataVersion = db.prepare('PRAGMA data_version').pluck();
  let others = { at: -Infinity, version: 0 };
  return {
    users,
    keys,
    deviceCursors,
    agents: sqliteAgents(db),
    sessions,
    signinLinks,
    signinFailures: sqliteSigninFailures(db),
    oauthClients,
    grants,
    server,
    purgeExpired: async (before) => {
      db.transaction(() => purge.forEach((statement) => statement.run(before)))();
    },
    changeStamp: () => {
      const now = performance.now();
      if (now - others.at >= OTHER_WRITERS_SEEN_MS) others = { at: now, version: dataVersion.get() as number };
      return `${others.version}:${ownChanges.get() as number}`;
    },
    close: async () => {
      db.close();
    },
  };
}
