import { QuireError } from '../../vault-store/errors.js';
import { underPrefix } from '../../vault-store/paths.js';
import type { Credential } from '../auth/credential.js';
import type { AnyOperation } from './operation.js';
import type { Agent, AgentStore } from '../agents/agent-store.js';

export interface AgentAccess {
  agent?: Agent;
  visible: (path: string) => boolean;
}

const EVERYTHING = () => true;

/** True when some prefix covers the path; a folder prefix "a/" is covered by "a/" and "". */
export function withinPrefixes(path: string, prefixes: readonly string[]): boolean {
  return prefixes.some((prefix) => underPrefix(path, prefix));
}

export function readsWholeVault(agent: Agent): boolean {
  return agent.read.includes('');
}

/** The owner, or an agent reading the whole vault: the callers whole-vault figures (commits, disk use) are for. */
export function seesWholeVault(agent: Agent | undefined): boolean {
  return !agent || readsWholeVault(agent);
}

function forbidden(agent: Agent, message: string, details: Record<string, unknown> = {}): QuireError {
  return new QuireError('AGENT_FORBIDDEN', message, { agent: agent.name, mode: agent.mode, ...details });
}

const folders = (prefixes: readonly string[]) => prefixes.map((p) => p || '(whole vault)').join(', ') || 'no folder';

/**
 * A path is writable where the agent may both write and read: a write (its CONFLICT, its
 * returned page, its `created`) would otherwise tell the agent what a hidden path holds.
 */
function checkPaths(agent: Agent, paths: readonly string[]): void {
  const outside = paths.filter((p) => !withinPrefixes(p, agent.write) || !withinPrefixes(p, agent.read));
  if (outside.length) {
    throw forbidden(
      agent,
      `Agent ${agent.name} may only write under ${folders(agent.write)}, and only where it may read (${folders(agent.read)}); ${outside.join(', ')} is outside`,
      { paths: outside, write: agent.write, read: agent.read },
    );
  }
}

/** The credential's agent; a key outliving its agent must not fall back to the owner's rights. */
async function boundAgent(agents: AgentStore, user: string, name: string): Promise<Agent> {
  const agent = await agents.get(user, name);
  if (!agent) throw new QuireError('AGENT_FORBIDDEN', `Agent ${name} no longer exists`, { agent: name });
  return agent;
}

/**
 * The agent half of the effective right (scope ∩ agent), checked in `invoke` after the
 * input is parsed: owner-only and whole-vault operations, the agent's mode, and its write
 * prefixes (within its read prefixes). Returns the read predicate handlers must filter through.
 */
export async function agentAccess(
  agents: AgentStore,
  op: AnyOperation,
  credential: Credential,
  input: Record<string, unknown>,
): Promise<AgentAccess> {
  if (!credential.agent) return { visible: EVERYTHING };
  const agent = await boundAgent(agents, credential.user, credential.agent);
  if (op.ownerOnly) throw forbidden(agent, `${op.name} is for the vault owner only; agent ${agent.name} cannot call it`);
  if (op.wholeVault && !readsWholeVault(agent))
    throw forbidden(agent, `${op.name} needs read access to the whole vault; agent ${agent.name} reads only ${agent.read.join(', ')}`);
  if (op.scope !== 'read' && agent.mode === 'read') throw forbidden(agent, `Agent ${agent.name} is read-only; ${op.name} is refused`);
  // Every operation beyond reading, not only those that name paths (rebuild_index names none), except proposing.
  if (op.scope !== 'read' && agent.mode === 'propose' && !op.proposes) {
    throw forbidden(
      agent,
      `Agent ${agent.name} may not write directly: send the change with create_proposal (POST /vault/proposals) for the owner to approve`,
    );
  }
  checkPaths(agent, [...(op.writes?.(input) ?? []), ...(op.proposes?.(input) ?? [])]);
  return { agent, visible: (path) => withinPrefixes(path, agent.read) };
}

/**
 * For surfaces outside the catalog that hand out the whole vault at once (clone over git):
 * refuses an agent that cannot read all of it, or whose agent no longer exists.
 */
export async function checkWholeVault(agents: AgentStore, credential: Credential): Promise<void> {
  if (!credential.agent) return;
  const agent = await boundAgent(agents, credential.user, credential.agent);
  if (!readsWholeVault(agent))
    throw forbidden(agent, `Cloning needs read access to the whole vault; agent ${agent.name} reads only ${agent.read.join(', ')}`);
}
