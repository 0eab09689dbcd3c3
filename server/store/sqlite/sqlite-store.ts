import Database from 'better-sqlite3';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Store } from '../store.js';
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
    close: async () => {
      db.close();
    },
  };
}
