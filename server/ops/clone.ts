import { z } from 'zod';
import { defineOp } from './operation.js';

/**
 * Reading the vault over git (`git clone {base}/vault.git`). The git smart-HTTP adapter
 * speaks the protocol; this declaration is what it asks `invoke` for, so plan, rate limit,
 * scope and agent rules apply to clones exactly as to every other operation.
 */
export const gitClone = defineOp({
  name: 'git_clone',
  description: 'Clone or fetch the vault with git over HTTP (read-only).',
  scope: 'read',
  bucket: 'sync',
  // A clone carries every page: an agent limited to some folders must not have it.
  wholeVault: true,
  input: z.object({}),
  rest: null,
  mcp: null,
  restOnly: 'Served by git smart HTTP at /vault.git, not as a JSON route or a tool.',
  handler: async (ctx) => ({ gitdir: ctx.vault.gitdir }),
});
