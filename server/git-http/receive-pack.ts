import type { ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startGitService } from './git-service.js';

/** The one ref a push may move (vault-store's `BRANCH_REF`, which server/ may not import). */
export const PUSH_REF = 'refs/heads/main';

/**
 * `server/git-http/hooks` from the package root, found from this file whether it runs from
 * source (tsx) or compiled into `dist/` (tsc copies only .ts output, so the hooks stay in the
 * source tree, which ships next to dist/).
 */
export function hooksFolder(from: string = fileURLToPath(import.meta.url)): string {
  let dir = dirname(from);
  while (!existsSync(join(dir, 'package.json'))) {
    const parent = dirname(dir);
    if (parent === dir) throw new Error(`No package.json above ${from}`);
    dir = parent;
  }
  return join(dir, 'server', 'git-http', 'hooks');
}

/**
 * `git receive-pack`, fast-forward only, into the vault's branch and nothing else:
 * - `denyCurrentBranch=updateInstead`: the checked-out branch may be pushed to, and the
 *   working tree follows, through our `push-to-checkout` hook (only files the push changes
 *   must be clean);
 * - `denyNonFastForwards`, `denyDeletes`: no force push, no deleting the branch;
 * - `hideRefs`: every ref but the branch is hidden, and a hidden ref cannot be created or
 *   updated (tags, other branches, refs/quire/* proposals);
 * - `fsckObjects`: receive-pack checks strictly, so fsck's warnings are errors: trees
 *   holding `.git` (any case, NTFS and 8.3 forms), `.`, `..`, a name with a `/` or an empty
 *   name are refused with the whole pack, before any ref or file changes;
 * - `maxInputSize`: a second guard behind the HTTP body limit;
 * - `autogc=false`: no `git gc --auto` after the push, which would run on in the background,
 *   outside the vault's queue, repacking objects the server is reading and writing.
 */
export function startReceivePack(input: {
  gitBinary: string;
  gitdir: string;
  advertise: boolean;
  maxBytes: number;
}): Promise<ChildProcess> {
  return startGitService({
    gitBinary: input.gitBinary,
    service: 'receive-pack',
    gitdir: input.gitdir,
    advertise: input.advertise,
    config: [
      'receive.denyCurrentBranch=updateInstead',
      'receive.denyNonFastForwards=true',
      'receive.denyDeletes=true',
      'receive.fsckObjects=true',
      `receive.maxInputSize=${input.maxBytes}`,
      'receive.autogc=false',
      'receive.hideRefs=refs',
      `receive.hideRefs=!${PUSH_REF}`,
      `core.hooksPath=${hooksFolder()}`,
    ],
  });
}
