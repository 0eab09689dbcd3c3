import type { Database } from 'better-sqlite3';
import type { Agent, AgentMode, AgentsStore } from '../store.js';

interface AgentRow {
  user: string;
  name: string;
  description: string;
  mode: AgentMode;
  read: string;
  write: string;
  created_at: string;
  updated_at: string;
}

const toAgent = ({ user: _user, read, write, ...row }: AgentRow): Agent => ({ ...row, read: JSON.parse(read), write: JSON.parse(write) });

/** Each user's agents; prefix lists are stored as JSON arrays. */
export function sqliteAgents(db: Database): AgentsStore {
  const q = {
    list: db.prepare<[string], AgentRow>('SELECT * FROM agents WHERE user = ? ORDER BY name'),
    get: db.prepare<[string, string], AgentRow>('SELECT * FROM agents WHERE user = ? AND name = ?'),
    add: db.prepare(
      'INSERT INTO agents (user, name, description, mode, read, write, created_at, updated_at) VALUES (@user, @name, @description, @mode, @read, @write, @created_at, @updated_at) ON CONFLICT DO NOTHING',
    ),
    replace: db.prepare(
      'UPDATE agents SET description = @description, mode = @mode, read = @read, write = @write, updated_at = @updated_at WHERE user = @user AND name = @name',
    ),
    remove: db.prepare<[string, string], AgentRow>('DELETE FROM agents WHERE user = ? AND name = ? RETURNING *'),
  };
  const row = (user: string, a: Agent) => ({ ...a, user, read: JSON.stringify(a.read), write: JSON.stringify(a.write) });
  return {
    list: async (user) => q.list.all(user).map(toAgent),
    get: async (user, name) => {
      const found = q.get.get(user, name);
      return found && toAgent(found);
    },
    add: async (user, agent) => q.add.run(row(user, agent)).changes === 1,
    replace: async (user, agent) => q.replace.run(row(user, agent)).changes === 1,
    remove: async (user, name) => {
      const found = q.remove.get(user, name);
      return found && toAgent(found);
    },
  };
}
