/**
 * The tables, one step per schema version. `user_version` is the number of steps a file has
 * run: a new file runs them all, an older one the steps past its version. A released step
 * never changes; a change is a new step at the end.
 */
export const SCHEMA_STEPS: string[] = [
  `
CREATE TABLE users (
  name TEXT PRIMARY KEY, plan TEXT NOT NULL, created_at TEXT NOT NULL,
  password TEXT -- JSON PasswordHash
);
CREATE TABLE keys (
  id TEXT PRIMARY KEY,
  user TEXT NOT NULL REFERENCES users(name) ON DELETE CASCADE,
  name TEXT NOT NULL, scope TEXT NOT NULL, device INTEGER NOT NULL, agent TEXT,
  hash TEXT NOT NULL UNIQUE, created_at TEXT NOT NULL, last_used_at TEXT,
  UNIQUE (user, name)
);
CREATE TABLE device_cursors (
  key_id TEXT PRIMARY KEY REFERENCES keys(id) ON DELETE CASCADE,
  cursor TEXT NOT NULL, cursor_at TEXT NOT NULL
);
CREATE TABLE agents (
  user TEXT NOT NULL, name TEXT NOT NULL, description TEXT NOT NULL, mode TEXT NOT NULL,
  read TEXT NOT NULL, write TEXT NOT NULL, -- JSON arrays of prefixes
  created_at TEXT NOT NULL, updated_at TEXT NOT NULL,
  PRIMARY KEY (user, name)
);
CREATE TABLE sessions (
  id TEXT PRIMARY KEY, user TEXT NOT NULL, hash TEXT NOT NULL UNIQUE, csrf TEXT NOT NULL,
  created_at TEXT NOT NULL, expires_at INTEGER NOT NULL
);
CREATE INDEX sessions_user ON sessions (user);
CREATE TABLE signin_links (hash TEXT PRIMARY KEY, user TEXT NOT NULL, expires_at INTEGER NOT NULL);
CREATE INDEX signin_links_user ON signin_links (user);
CREATE TABLE oauth_clients (client_id TEXT PRIMARY KEY, info TEXT NOT NULL);
CREATE TABLE oauth_grants (
  id TEXT PRIMARY KEY, user TEXT NOT NULL, client_id TEXT NOT NULL, client_name TEXT NOT NULL,
  scopes TEXT NOT NULL, agent TEXT, resource TEXT NOT NULL, created_at TEXT NOT NULL, last_used_at TEXT
);
CREATE INDEX oauth_grants_user ON oauth_grants (user);
CREATE TABLE oauth_codes (
  hash TEXT PRIMARY KEY, client_id TEXT NOT NULL, client_name TEXT NOT NULL, user TEXT NOT NULL,
  scopes TEXT NOT NULL, resource TEXT NOT NULL, redirect_uri TEXT NOT NULL, challenge TEXT NOT NULL,
  agent TEXT, expires_at INTEGER NOT NULL, grant_id TEXT
);
CREATE TABLE oauth_tokens (
  hash TEXT PRIMARY KEY, kind TEXT NOT NULL,
  grant_id TEXT NOT NULL REFERENCES oauth_grants(id) ON DELETE CASCADE,
  scopes TEXT NOT NULL, expires_at INTEGER NOT NULL, rotated INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX oauth_tokens_grant ON oauth_tokens (grant_id);
CREATE TABLE server_facts (name TEXT PRIMARY KEY, value TEXT NOT NULL);
`,
  // Failed sign-ins per throttle key, in fixed windows that end at `resets_at` (epoch ms).
  'CREATE TABLE signin_failures (key TEXT PRIMARY KEY, hits INTEGER NOT NULL, resets_at INTEGER NOT NULL);',
];
