import { z } from 'zod';
import { AGENT_MODES, AGENT_NAME } from '../agents/agent-store.js';
import { defineOp } from './operation.js';

const OWNER_ONLY = 'Agents are managed by the vault owner (REST with an owner key, the account area or the CLI), never by an assistant';

const agentName = z.string().regex(AGENT_NAME, 'lower-case letters, digits, "-" and "_", 1-39 characters');
const prefixes = z.array(z.string().max(1024)).max(100);

export const listAgents = defineOp({
  name: 'list_agents',
  description: 'List the agents defined for this vault with their mode and read/write folder prefixes.',
  scope: 'read',
  bucket: 'read',
  input: z.object({}),
  ownerOnly: true,
  rest: { method: 'get', path: '/vault/agents' },
  mcp: null,
  restOnly: OWNER_ONLY,
  handler: async (ctx) => ({ agents: await ctx.services.agents.list(ctx.user) }),
});

export const putAgent = defineOp({
  name: 'put_agent',
  description:
    'Create or replace an agent: its mode (read, propose or write), read prefixes (default: the whole vault) and write prefixes (default: the whole vault).',
  scope: 'write',
  bucket: 'write',
  input: z.object({
    name: agentName,
    description: z.string().max(1000).default(''),
    mode: z.enum(AGENT_MODES),
    read: prefixes.default(['']).describe('Folder prefixes the agent may read; "" is the whole vault'),
    write: prefixes.default(['']).describe('Folder prefixes the agent may write or propose changes in'),
  }),
  ownerOnly: true,
  rest: { method: 'put', path: '/vault/agents/:name', status: (r: { created: boolean }) => (r.created ? 201 : 200) },
  mcp: null,
  restOnly: OWNER_ONLY,
  handler: async (ctx, { name, ...input }) => {
    const { agent, created } = await ctx.services.agents.put(ctx.user, name, input);
    return { ...agent, created };
  },
});

export const deleteAgent = defineOp({
  name: 'delete_agent',
  description: "Delete an agent. Keys bound to it stop working (they never fall back to the owner's rights).",
  scope: 'write',
  bucket: 'write',
  input: z.object({ name: agentName }),
  ownerOnly: true,
  rest: { method: 'delete', path: '/vault/agents/:name' },
  mcp: null,
  restOnly: OWNER_ONLY,
  handler: async (ctx, input) => {
    const agent = await ctx.services.agents.remove(ctx.user, input.name);
    return { name: agent.name, deleted: true };
  },
});
