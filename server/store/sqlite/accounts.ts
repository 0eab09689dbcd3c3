import type { Database } from 'better-sqlite3';
import type { DeviceCursorsStore, KeyRecord, KeysStore, ServerFactsStore, UserRecord, UsersStore } from '../store.js';

interface UserRow {
  name: string;
  plan: string;
  created_at: string;
  password: string | null;
}
interface KeyRow extends Omit<KeyRecord, 'device' | 'agent' | 'last_used_at'> {
  device: number;
  agent: string | null;
  last_used_at: string | null;
}

const toUser = (row: UserRow): UserRecord => ({
  name: row.name,
  plan: row.plan,
  created_at: row.created_at,
  ...(row.password ? { password: JSON.parse(row.password) } : {}),
});

const toKey = ({ device, agent, last_used_at: lastUsed, ...row }: KeyRow): KeyRecord => ({
  ...row,
  device: device === 1,
  ...(agent ? { agent } : {}),
  ...(lastUsed ? { last_used_at: lastUsed } : {}),
});

/** Users, their API keys (hashed, with when each was last used), device cursors, server facts. */
export function sqliteAccounts(db: Database): {
  users: UsersStore;
  keys: KeysStore;
  deviceCursors: DeviceCursorsStore;
  server: ServerFactsStore;
} {
  const q = {
    users: db.prepare<[], UserRow>('SELECT * FROM users ORDER BY name'),
    user: db.prepare<[string], UserRow>('SELECT * FROM users WHERE name = ?'),
    addUser: db.prepare('INSERT INTO users (name, plan, created_at, password) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING'),
    setPlan: db.prepare('UPDATE users SET plan = ? WHERE name = ?'),
    setPassword: db.prepare('UPDATE users SET password = ? WHERE name = ?'),
    keys: db.prepare<[string], KeyRow>('SELECT * FROM keys WHERE user = ? ORDER BY rowid'),
    keyById: db.prepare<[string], KeyRow>('SELECT * FROM keys WHERE id = ?'),
    keyByHash: db.prepare<[string], KeyRow>('SELECT * FROM keys WHERE hash = ?'),
    addKey: db.prepare(
      'INSERT INTO keys (id, user, name, scope, device, agent, hash, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (user, name) DO NOTHING',
    ),
    removeKey: db.prepare<[string, string], KeyRow>('DELETE FROM keys WHERE user = ? AND name = ? RETURNING *'),
    touchKey: db.prepare('UPDATE keys SET last_used_at = ? WHERE id = ?'),
    cursor: db.prepare<[string], { cursor: string; cursor_at: string }>('SELECT cursor, cursor_at FROM device_cursors WHERE key_id = ?'),
    setCursor: db.prepare(
      'INSERT INTO device_cursors (key_id, cursor, cursor_at) VALUES (?, ?, ?) ON CONFLICT (key_id) DO UPDATE SET cursor = excluded.cursor, cursor_at = excluded.cursor_at',
    ),
    fact: db.prepare<[string], { value: string }>('SELECT value FROM server_facts WHERE name = ?'),
    setFact: db.prepare('INSERT INTO server_facts (name, value) VALUES (?, ?) ON CONFLICT (name) DO UPDATE SET value = excluded.value'),
  };
  return {
    users: {
      list: async () => q.users.all().map(toUser),
      get: async (name) => {
        const row = q.user.get(name);
        return row && toUser(row);
      },
      add: async (u) => q.addUser.run(u.name, u.plan, u.created_at, u.password ? JSON.stringify(u.password) : null).changes === 1,
      setPlan: async (name, plan) => q.setPlan.run(plan, name).changes === 1,
      setPassword: async (name, password) => q.setPassword.run(JSON.stringify(password), name).changes === 1,
    },
    keys: {
      listForUser: async (user) => q.keys.all(user).map(toKey),
      byId: async (id) => {
        const row = q.keyById.get(id);
        return row && toKey(row);
      },
      byHash: async (hash) => {
        const row = q.keyByHash.get(hash);
        return row && toKey(row);
      },
      add: async (k) => q.addKey.run(k.id, k.user, k.name, k.scope, k.device ? 1 : 0, k.agent ?? null, k.hash, k.created_at).changes === 1,
      remove: async (user, name) => {
        const row = q.removeKey.get(user, name);
        return row && toKey(row);
      },
      touch: async (id, at) => {
        q.touchKey.run(at, id);
      },
    },
    deviceCursors: {
      get: async (keyId) => q.cursor.get(keyId),
      set: async (keyId, c) => {
        q.setCursor.run(keyId, c.cursor, c.cursor_at);
      },
    },
    server: {
      accountUrl: async () => q.fact.get('account_url')?.value,
      recordAccountUrl: async (url) => {
        q.setFact.run('account_url', url);
      },
    },
  };
}
