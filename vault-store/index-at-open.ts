import { indexFiles } from './commit-parts.js';
import type { GitIndex } from './git/index-file.js';
import type { GitRepo } from './git/repo.js';
import { diffAllFiles } from './history/tree-diff.js';
import type { Log } from './log.js';

/**
 * At open, before anything is queued: brings `.git/index` to HEAD's tree when the server left
 * it behind. A batch moves the branch before it writes the index, so a crash in between
 * leaves HEAD with the batch's files and the index without them, and `git status` in the
 * folder would list them as deleted and untracked for good (later batches touch only their
 * own paths). The index the server last wrote is known by the note beside it (tree and
 * checksum, GitIndex.writtenFor): when that index is still on disk and its tree is not HEAD's,
 * the paths that differ between the two trees are written, each working file hashed once and
 * every other entry's stat data kept, so git does not re-read the folder. An index git wrote
 * since (a `git add`, a pull) is git's and left as it is; a missing one is built whole.
 * Failures are logged: the index is git's cache, never the vault's data.
 */
export async function bringIndexToHead(repo: GitRepo, index: GitIndex, tree: string, log: Log): Promise<void> {
  try {
    if (index.missing) return await index.rebuild(await indexFiles(repo, tree), repo.dir, tree);
    const written = await index.writtenFor();
    if (written === undefined || written === tree) return;
    let changes;
    try {
      changes = await diffAllFiles(repo.trees, written, tree);
    } catch {
      // The noted tree is gone (a `git gc` after the branch was rewound): the whole tree, then.
      return await index.rebuild(await indexFiles(repo, tree), repo.dir, tree);
    }
    const updates = changes.map((c) => ({ path: c.path, oid: c.hash, mode: parseInt(c.mode, 8) }));
    await (await index.lock()).apply(updates, repo.dir, tree);
    log.warn({ vault: repo.dir, paths: updates.length }, '.git/index was behind the branch (a crash while writing); brought up to date');
  } catch (err) {
    log.warn({ vault: repo.dir, err: (err as Error).message }, 'bringing .git/index up to the branch failed');
  }
}
