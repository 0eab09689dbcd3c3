import { QuireError } from '../../vault-store/errors.js';
import { normalizePrefix } from '../../vault-store/paths.js';
import type { Agent, AgentMode, Store } from '../store/store.js';

export { AGENT_MODES, type Agent, type AgentMode } from '../store/store.js';

export const AGENT_NAME = /^[a-z0-9][a-z0-9_-]{0,38}$/;

/** What an operator or owner may set; absent fields keep their value (or the default on create). */
export interface AgentInput {
  description?: string;
  mode?: AgentMode;
  read?: string[];
  write?: string[];
}

/** Sorted, de-duplicated, and without prefixes another one already covers. */
function normalizePrefixes(list: readonly string[]): string[] {
  const prefixes = [...new Set(list.map((p) => normalizePrefix(p)))].sort();
  return prefixes.filter((p) => !prefixes.some((q) => q !== p && p.startsWith(q)));
}

/** Each user's agents, over the store shared with the CLI: changes apply without a restart. */
export class AgentStore {
  constructor(
    private readonly store: Store,
    private readonly now: () => Date = () => new Date(),
  ) {}

  list(user: string): Promise<Agent[]> {
    return this.store.agents.list(user);
  }

  get(user: string, name: string): Promise<Agent | undefined> {
    return this.store.agents.get(user, name);
  }

  async require(user: string, name: string): Promise<Agent> {
    const agent = await this.get(user, name);
    if (!agent) throw new QuireError('NOT_FOUND', `${user} has no agent named ${name}`, { agent: name });
    return agent;
  }

  /**
   * Creates the agent or changes the given fields of an existing one. `mustExist` makes it
   * an update only (`quire agent set`). Read and write default to the whole vault.
   */
  async put(
    user: string,
    name: string,
    input: AgentInput,
    options: { mustExist?: boolean; mustNotExist?: boolean } = {},
  ): Promise<{ agent: Agent; created: boolean }> {
    if (!AGENT_NAME.test(name))
      throw new QuireError('INVALID_REQUEST', 'Agent names are 1-39 characters: lower-case letters, digits, "-" and "_"', {
        field: 'name',
      });
    const read = input.read && normalizePrefixes(input.read);
    const write = input.write && normalizePrefixes(input.write);
    const existing = await this.get(user, name);
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
    // The row may have come or gone since the read: the store's answer decides, never a lost write.
    const stored = existing ? await this.store.agents.replace(user, agent) : await this.store.agents.add(user, agent);
    if (!stored) throw new QuireError('CONFLICT', `${user}'s agent ${name} was changed at the same time; try again`, { agent: name });
    return { agent, created: !existing };
  }

  async remove(user: string, name: string): Promise<Agent> {
    const agent = await this.store.agents.remove(user, name);
    if (!agent) throw new QuireError('NOT_FOUND', `${user} has no agent named ${name}`, { agent: name });
    return agent;
  }
}
