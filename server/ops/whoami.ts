import { z } from 'zod';
import { BUCKETS } from '../accounts/plans.js';
import { checkPlan } from './invoke.js';
import { defineOp } from './operation.js';

export const whoami = defineOp({
  name: 'whoami',
  description:
    'Who you are in this vault: the user, your credential and its scopes, the agent you act as (its mode and read/write folders), the plan and how much of each rate limit is left.',
  scope: 'read',
  bucket: 'read',
  input: z.object({}),
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
      rate_limits: Object.fromEntries(
        rates.map((r) => [r.bucket, { limit: r.limit, remaining: r.remaining, reset_seconds: r.resetSeconds }]),
      ),
    };
  },
});
