import { AGENT_MODES, type Agent, type AgentInput, type AgentMode } from '../../server/agents/agent-store.js';
import type { ConfigFlags } from '../../server/config.js';
import { withCliContext, type CliContext } from './context.js';
import { UsageError } from './usage-error.js';

export interface AgentFlags {
  mode?: string;
  read?: string[];
  write?: string[];
  description?: string;
}

const USAGE = `usage:
  quire agent add USER NAME --mode read|propose|write [--read PREFIX]... [--write PREFIX]... [--description TEXT]
  quire agent set USER NAME [--mode MODE] [--read PREFIX]... [--write PREFIX]... [--description TEXT]
  quire agent list USER
  quire agent remove USER NAME`;

function agentInput(values: AgentFlags): AgentInput {
  if (values.mode !== undefined && !AGENT_MODES.includes(values.mode as AgentMode)) {
    throw new UsageError(`unknown mode "${values.mode}" (modes: ${AGENT_MODES.join(', ')})`);
  }
  return { mode: values.mode as AgentMode | undefined, read: values.read, write: values.write, description: values.description };
}

const prefixes = (list: string[]) => (list.length ? list.map((p) => p || '/').join(',') : '-');

function describe(agent: Agent): string {
  return [agent.name, agent.mode, `read=${prefixes(agent.read)}`, `write=${prefixes(agent.write)}`, agent.description].join('\t');
}

export function agentCommand(flags: ConfigFlags, args: string[], values: AgentFlags): Promise<void> {
  return withCliContext(flags, (ctx) => agentAction(ctx, args, values));
}

async function agentAction({ accounts, agents }: CliContext, args: string[], values: AgentFlags): Promise<void> {
  const [action, user, name] = args;
  if (user) await accounts.requireUser(user);
  switch (action) {
    case 'add': {
      if (!user || !name || !values.mode) throw new UsageError(USAGE);
      const { agent } = await agents.put(user, name, agentInput(values), { mustNotExist: true });
      console.log(`created agent ${user}/${describe(agent)}`);
      return;
    }
    case 'set': {
      if (!user || !name) throw new UsageError(USAGE);
      const { agent } = await agents.put(user, name, agentInput(values), { mustExist: true });
      console.log(`updated agent ${user}/${describe(agent)}`);
      return;
    }
    case 'list':
      if (!user) throw new UsageError(USAGE);
      for (const agent of await agents.list(user)) console.log(describe(agent));
      return;
    case 'remove':
      if (!user || !name) throw new UsageError(USAGE);
      await agents.remove(user, name);
      console.log(`removed agent ${user}/${name}`);
      return;
    default:
      throw new UsageError(USAGE);
  }
}
