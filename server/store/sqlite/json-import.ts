import type { Database } from 'better-sqlite3';
import { existsSync, readFileSync, renameSync } from 'node:fs';
import { join } from 'node:path';
import type { Agent, CodeRecord, KeyRecord, OAuthGrant, Session, SigninLink, TokenRecord, UserRecord } from '../store.js';

/** The files earlier versions kept in the data folder, each rewritten whole on every change. */
export const JSON_FILES = [
  'accounts.json',
  'key-usage.json',
  'agents.json',
  'sessions.json',
  'signin-links.json',
  'oauth-clients.json',
  'oauth-grants.json',
] as const;
type JsonFileName = (typeof JSON_FILES)[number];

interface JsonDocs {
  'accounts.json': { users: Record<string, UserRecord>; keys: KeyRecord[] };
  'key-usage.json': Record<string, { last_used_at?: string; cursor?: string; cursor_at?: string }>;
  'agents.json': { agents: Record<string, Record<string, Agent>> };
  'sessions.json': { sessions: Session[] };
  'signin-links.json': { links: SigninLink[] };
  'oauth-clients.json': { clients: Record<string, { client_id: string }> };
  'oauth-grants.json': { grants: OAuthGrant[]; codes: CodeRecord[]; tokens: TokenRecord[] };
}

const IMPORTED = 'json_imported_at';

/**
 * Moves the state of a data folder written by an earlier version into the database: all of
 * it in one transaction, then each file is renamed `*.json.migrated` (kept as a backup). The
 * mark in `server_facts` makes a second run, or a second process racing this one, a no-op.
 */
export function importJsonFiles(db: Database, dataDir: string): void {
  const present = JSON_FILES.filter((name) => existsSync(join(dataDir, name)));
  if (!present.length) return;
  const run = (sql: string, ...rows: object[]) => {
    const statement = db.prepare(sql);
    for (const row of rows) statement.run(row);
  };
  const imported = db
    .transaction(() => {
      if (db.prepare('SELECT 1 FROM server_facts WHERE name = ?').get(IMPORTED)) return false;
      const read = <N extends JsonFileName>(name: N): Partial<JsonDocs[N]> =>
        present.includes(name) ? JSON.parse(readFileSync(join(dataDir, name), 'utf8')) : {};
      const accounts = read('accounts.json');
      run(
        'INSERT INTO users (name, plan, created_at, password) VALUES (@name, @plan, @created_at, @password)',
        ...Object.values(accounts.users ?? {}).map((u) => ({ ...u, password: u.password ? JSON.stringify(u.password) : null })),
      );
      run(
        'INSERT INTO keys (id, user, name, scope, device, agent, hash, created_at) VALUES (@id, @user, @name, @scope, @device, @agent, @hash, @created_at)',
        ...(accounts.keys ?? []).map((k) => ({ agent: null, ...k, device: k.device ? 1 : 0 })),
      );
      // Usage of keys revoked since is dropped: the WHERE skips ids with no key.
      const usage = Object.entries(read('key-usage.json')).map(([key_id, u]) => ({
        key_id,
        last_used_at: null,
        cursor: null,
        cursor_at: null,
        ...u,
      }));
      run('UPDATE keys SET last_used_at = @last_used_at WHERE id = @key_id', ...usage.filter((u) => u.last_used_at));
      run(
        'INSERT INTO device_cursors (key_id, cursor, cursor_at) SELECT @key_id, @cursor, @cursor_at WHERE EXISTS (SELECT 1 FROM keys WHERE id = @key_id)',
        ...usage.filter((u) => u.cursor).map((u) => ({ ...u, cursor_at: u.cursor_at ?? '' })),
      );
      run(
        'INSERT INTO agents (user, name, description, mode, read, write, created_at, updated_at) VALUES (@user, @name, @description, @mode, @read, @write, @created_at, @updated_at)',
        ...Object.entries(read('agents.json').agents ?? {}).flatMap(([user, agents]) =>
          Object.values(agents).map((a) => ({ ...a, user, read: JSON.stringify(a.read), write: JSON.stringify(a.write) })),
        ),
      );
      run(
        'INSERT INTO sessions (id, user, hash, csrf, created_at, expires_at) VALUES (@id, @user, @hash, @csrf, @created_at, @expires_at)',
        ...(read('sessions.json').sessions ?? []),
      );
      run(
        'INSERT INTO signin_links (hash, user, expires_at) VALUES (@hash, @user, @expires_at)',
        ...(read('signin-links.json').links ?? []),
      );
      run(
        'INSERT INTO oauth_clients (client_id, info) VALUES (@client_id, @info)',
        ...Object.values(read('oauth-clients.json').clients ?? {}).map((c) => ({ client_id: c.client_id, info: JSON.stringify(c) })),
      );
      const oauth = read('oauth-grants.json');
      run(
        'INSERT INTO oauth_grants (id, user, client_id, client_name, scopes, agent, resource, created_at, last_used_at) VALUES (@id, @user, @client_id, @client_name, @scopes, @agent, @resource, @created_at, @last_used_at)',
        ...(oauth.grants ?? []).map((g) => ({ agent: null, last_used_at: null, ...g, scopes: JSON.stringify(g.scopes) })),
      );
      run(
        'INSERT INTO oauth_codes (hash, client_id, client_name, user, scopes, resource, redirect_uri, challenge, agent, expires_at, grant_id) VALUES (@hash, @client_id, @client_name, @user, @scopes, @resource, @redirect_uri, @challenge, @agent, @expires_at, @grant_id)',
        ...(oauth.codes ?? []).map((c) => ({ agent: null, grant_id: null, ...c, scopes: JSON.stringify(c.scopes) })),
      );
      run(
        'INSERT INTO oauth_tokens (hash, kind, grant_id, scopes, expires_at, rotated) SELECT @hash, @kind, @grant_id, @scopes, @expires_at, @rotated WHERE EXISTS (SELECT 1 FROM oauth_grants WHERE id = @grant_id)',
        ...(oauth.tokens ?? []).map((t) => ({ ...t, scopes: JSON.stringify(t.scopes), rotated: t.rotated ? 1 : 0 })),
      );
      db.prepare('INSERT INTO server_facts (name, value) VALUES (?, ?)').run(IMPORTED, new Date().toISOString());
      return true;
    })
    .immediate();
  // A file found after the import (restored by hand, or left by a crash right here) is
  // ignored and left alone, so it never replaces the backup.
  if (!imported) return;
  for (const name of present) renameSync(join(dataDir, name), join(dataDir, `${name}.migrated`));
}
