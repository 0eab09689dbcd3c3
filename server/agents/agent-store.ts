import { join } from 'node:path';
import { QuireError } from '../../vault-store/errors.js';
import { normalizePrefix } from '../../vault-store/paths.js';
import { JsonFile } from '../accounts/json-file.js';

export const AGENT_MODES = ['read', 'propose', 'write'] as const;
/** `read`: reads only; `propose`: reads and creates proposals; `write`: writes directly. */
export type AgentMode = (typeof AGENT_MODES)[number];

export const AGENT_NAME = /^[a-z0-9][a-z0-9_-]{0,38}$/;

export interface Agent {
  name: string;
  description: string;
  mode: AgentMode;
  /** Folder prefixes with a trailing "/"; "" is the whole vault. */
  read: string[];
  write: string[];
  created_at: string;
  updated_at: string;
}

/** What an operator or owner may set; absent fields keep their value (or the default on create). */
export interface AgentInput {
  description?: string;
  mode?: AgentMode;
  read?: string[];
  write?: string[];
}

interface AgentsDoc {
  version: 1;
  /** user → agent name → agent */
  agents: Record<string, Record<string, Agent>>;
}

/** Sorted, de-duplicated, and without prefixes another one already covers. */
function normalizePrefixes(list: readonly string[]): string[] {
  const prefixes = [...new Set(list.map((p) => normalizePrefix(p)))].sort();
  return prefixes.filter((p) => !prefixes.some((q) => q !== p && p.startsWith(q)));
}

/**
 * Each user's agents in `<data>/agents.json`, shared by the server and the CLI like the
 * account store: every read sees the latest file, so changes apply without a restart.
 */
export class AgentStore {
  private readonly file: JsonFile<AgentsDoc>;

  constructor(dataDir: string, private readonly now: () => Date = () => new Date()) {
    this.file = new JsonFile<AgentsDoc>(join(dataDir, 'agents.json'), () => ({ version: 1, agents: {} }));
  }

  list(user: string): Agent[] {
    return Object.values(this.file.read().agents[user] ?? {}).sort((a, b) => a.name.localeCompare(b.name));
  }

  get(user: string, name: string): Agent | undefined {
    return this.file.read().agents[user]?.[name];
  }

  require(user: string, name: string): Agent {
    const agent = this.get(user, name);
    if (!agent) throw new QuireError('NOT_FOUND', `${user} has no agent named ${name}`, { agent: name });
    return agent;
  }

  /**
   * Creates the agent or changes the given fields of an existing one. `mustExist` makes it
   * an update only (`quire agent set`). Read and write default to the whole vault.
   */
  async put(user: string, name: string, input: AgentInput, options: { mustExist?: boolean; mustNotExist?: boolean } = {}): Promise<{ agent: Agent; created: boolean }> {
    if (!AGENT_NAME.test(name)) throw new QuireError('INVALID_REQUEST', 'Agent names are 1-39 characters: lower-case letters, digits, "-" and "_"', { field: 'name' });
    const read = input.read && normalizePrefixes(input.read);
    const write = input.write && normalizePrefixes(input.write);
    return this.file.update((doc) => {
      const agents = (doc.agents[user] ??= {});
      const existing = agents[name];
      if (!existing && options.mustExist) throw new QuireError('NOT_FOUND', `${user} has no agent named ${name}`, { agent: name });
      if (existing && options.mustNotExist) throw new QuireError('CONFLICT', `${user} already has an agent named ${name}`, { agent: name });
      const at = this.now().toISOString();
      const agent: Agent = {
        name,
        description: input.description ?? existing?.description ?? '',
        mode: input.mode ?? existing?.mode ?? 'read',
        read: read ?? existing?.read ?? [''],
        write: write ?? existing?.write ?? [''],
        created_at: existing?.created_at ?? at,
        updated_at: at,
      };
      agents[name] = agent;
      return { agent, created: !existing };
    });
  }

  async remove(user: string, name: string): Promise<Agent> {
    return this.file.update((doc) => {
      const agent = doc.agents[user]?.[name];
      if (!agent) throw new QuireError('NOT_FOUND', `${user} has no agent named ${name}`, { agent: name });
      delete doc.agents[user][name];
      return agent;
    });
  }
}
