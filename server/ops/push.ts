import { z } from 'zod';
import type { Config } from '../config.js';
import { defineOp } from './operation.js';

/**
 * The largest push, request body and pack: the largest request body the server already
 * accepts (the REST API's JSON limit, six pages' worth plus 64 KiB; QUIRE_MAX_PAGE_BYTES).
 */
export function maxPushBytes(config: Config): number {
  return config.maxPageBytes * 6 + 65536;
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
  handler: async (ctx) => ({ workspace: ctx.vault, maxBytes: maxPushBytes(ctx.config) }),
});
