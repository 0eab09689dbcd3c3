import { z } from 'zod';
import { BUCKETS, type Bucket } from '../accounts/plans.js';
import { AGENT_MODES } from '../agents/agent-store.js';
import { checkPlan } from './invoke.js';
import { defineOp } from './operation.js';

export const whoami = defineOp({
  name: 'whoami',
  description:
    'Who you are in this vault: the user, your credential and its scopes, the agent you act as (its mode and read/write folders), the plan and how much of each rate limit is left.',
  scope: 'read',
  bucket: 'read',
  input: z.object({}),
  output: z.object({
    user: z.string(),
    credential: z.object({
      kind: z.enum(['api_key', 'oauth', 'session']),
      name: z.string(),
      id: z.string(),
      device: z.boolean().describe('A device key, which acknowledges change-log cursors'),
    }),
    scopes: z.array(z.enum(['read', 'capture', 'write'])),
    agent: z
      .object({
        name: z.string(),
        description: z.string(),
        mode: z.enum(AGENT_MODES),
        read: z.array(z.string()).describe('Folders it may read ("" is the whole vault)'),
        write: z.array(z.string()).describe('Folders it may write or propose changes to'),
      })
      .nullable()
      .describe('The agent you act as; null when you act as the owner'),
    plan: z.object({
      name: z.string(),
      rest: z.boolean(),
      mcp: z.boolean(),
      limits: z.record(z.enum(BUCKETS), z.number()).describe('Requests per minute per bucket'),
    }),
    rate_limits: z.record(
      z.enum(BUCKETS),
      z.object({ limit: z.number(), remaining: z.number(), reset_seconds: z.number().describe('Until the window resets') }),
    ),
  }),
  rest: { method: 'get', path: '/vault/whoami' },
  mcp: { title: 'Who am I', annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true } },
  handler: async (ctx) => {
    const { credential, agent } = ctx;
    const planName = (await ctx.services.accounts.requireUser(ctx.user)).plan;
    const plan = await checkPlan(ctx.services, credential, ctx.surface);
    const rates = await Promise.all(BUCKETS.map((bucket) => ctx.services.limiter.peek(ctx.user, bucket, plan)));
    return {
      user: ctx.user,
      credential: { kind: credential.kind, name: credential.label, id: credential.id, device: credential.device },
      scopes: [...credential.capabilities].sort(),
      agent: agent ? { name: agent.name, description: agent.description, mode: agent.mode, read: agent.read, write: agent.write } : null,
      plan: { name: planName, rest: plan.rest, mcp: plan.mcp, limits: plan.limits },
      // One entry per bucket: `rates` maps BUCKETS.
      rate_limits: Object.fromEntries(
        rates.map((r) => [r.bucket, { limit: r.limit, remaining: r.remaining, reset_seconds: r.resetSeconds }]),
      ) as Record<Bucket, { limit: number; remaining: number; reset_seconds: number }>,
    };
  },
});
