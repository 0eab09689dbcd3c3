import { z } from 'zod';
import type { Plan } from '../accounts/plans.js';
import { checkPlan } from './invoke.js';
import { defineOp } from './operation.js';

/**
 * The largest push, request body (after gzip) and pack, in bytes: the caller's plan's
 * `push_mb`. The body waits on disk, not in memory, so this can be far above the REST limit.
 */
export function maxPushBytes(plan: Plan): number {
  return Math.floor(plan.push_mb * 1024 * 1024);
}

/**
 * Writing the vault over git (`git push {base}/vault.git`). Like `git_clone`, the git
 * smart-HTTP adapter speaks the protocol and asks `invoke` for this, so plan, rate limit
 * and scope apply; the handler hands back the workspace, whose queue the push runs in.
 */
export const gitPush = defineOp({
  name: 'git_push',
  description: 'Push commits to the vault with git over HTTP (fast-forward only).',
  scope: 'write',
  bucket: 'sync',
  // A push can change any page: neither agents limited to some folders nor whole-vault
  // agents may, since their write prefixes and mode cannot be checked against a pack.
  wholeVault: true,
  ownerOnly: true,
  input: z.object({}),
  rest: null,
  mcp: null,
  restOnly: 'Served by git smart HTTP at /vault.git, not as a JSON route or a tool.',
  handler: async (ctx) => {
    // `invoke` checked the plan already; this hands it over (whoami does the same).
    const plan = await checkPlan(ctx.services, ctx.credential, ctx.surface);
    return { workspace: ctx.vault, maxBytes: maxPushBytes(plan) };
  },
});
