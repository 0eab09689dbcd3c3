import { SYMLINK_MODE } from './git/tree-parse.js';
import type { GitRepo, Signature } from './git/repo.js';
import { diffAllFiles } from './history/tree-diff.js';
import { Manifest, type ManifestFile } from './manifest.js';
import { isVaultFilePath } from './paths.js';

export interface ChangedFile {
  path: string;
  op: 'add' | 'modify' | 'delete';
  /** Blob id after the commit (null when deleted). */
  oid: string | null;
  previous: string | null;
}

/** The manifest of `tree` by walking it: every file and link, each path checked once. */
export async function manifestOfTree(repo: GitRepo, tree: string): Promise<Manifest> {
  const files: ManifestFile[] = [];
  const links: string[] = [];
  // Times are looked up lazily: a stat per file here was most of opening a 10k vault.
  for (const file of await repo.trees.files(tree)) {
    if (file.mode === SYMLINK_MODE) links.push(file.path);
    else files.push({ path: file.path, oid: file.oid, hidden: !isVaultFilePath(file.path) });
  }
  return Manifest.of(files, links);
}

/**
 * Takes the manifest from commit `from` to commit `to` (the branch moved outside the server:
 * forward, back or sideways) by the diff of their trees, links and hidden files included, and
 * returns the file changes for commit listeners, with `to`'s time and author.
 */
export async function followTree(
  repo: GitRepo,
  manifest: Manifest,
  from: string,
  to: string,
): Promise<{ changes: ChangedFile[]; at: Date; author: Signature }> {
  const [before, after] = await Promise.all([repo.objects.commit(from), repo.objects.commit(to)]);
  const at = new Date(after.author.timestamp * 1000);
  const changes: ChangedFile[] = [];
  for (const change of await diffAllFiles(repo.trees, before.tree, after.tree)) {
    const previous = manifest.get(change.path)?.oid ?? null;
    const link = change.hash !== null && change.mode === SYMLINK_MODE;
    if (change.hash === null || link) manifest.delete(change.path);
    else manifest.set(change.path, { oid: change.hash, updatedAt: at });
    if (link) manifest.addLink(change.path);
    else if (change.mode === SYMLINK_MODE) manifest.deleteLink(change.path);
    const oid = link ? null : change.hash;
    if (oid !== previous)
      changes.push({ path: change.path, op: oid === null ? 'delete' : previous === null ? 'add' : 'modify', oid, previous });
  }
  return { changes, at, author: { name: after.author.name, email: after.author.email } };
}
