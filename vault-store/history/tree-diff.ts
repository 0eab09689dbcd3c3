import { SYMLINK_MODE, type TreeEntry } from '../git/tree-parse.js';
import type { TreeStore } from '../git/tree-store.js';
import { isPagePath } from '../paths.js';

export interface PathChange {
  path: string;
  op: 'add' | 'modify' | 'delete';
  /** Blob id after the change; null for a delete. */
  hash: string | null;
}

/**
 * File changes (pages and attachments) between two trees. Subtrees with equal ids are
 * skipped without reading them, and parsed trees come from the repo's tree memo, so a
 * commit that touched one page costs a few tree lookups however large the vault is. A path
 * that turns from file into folder (or back) shows as a delete plus adds. Hidden folders
 * are never read: they hold no page and nothing the vault serves.
 */
export async function diffFiles(trees: TreeStore, before: string | null, after: string | null): Promise<PathChange[]> {
  const out: PathChange[] = [];
  await diffAt(trees, before, after, '', out);
  return out.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

/** Page changes between two trees (see diffFiles). */
export async function diffPages(trees: TreeStore, before: string | null, after: string | null): Promise<PathChange[]> {
  return (await diffFiles(trees, before, after)).filter((c) => isPagePath(c.path));
}

async function diffAt(trees: TreeStore, before: string | null, after: string | null, prefix: string, out: PathChange[]): Promise<void> {
  if (before === after) return;
  const [left, right] = await Promise.all([entriesOf(trees, before), entriesOf(trees, after)]);
  const subtrees: Promise<void>[] = [];
  for (const [name, a] of left) {
    const b = right.get(name);
    if (b && b.oid === a.oid && b.type === a.type) continue;
    const path = prefix + name;
    if (a.type === 'tree' || b?.type === 'tree') {
      subtrees.push(diffAt(trees, treeOid(a), treeOid(b), `${path}/`, out));
    }
    const [was, now] = [blobOid(a), blobOid(b)];
    if (was !== now) {
      out.push(now === null ? { path, op: 'delete', hash: null } : { path, op: was === null ? 'add' : 'modify', hash: now });
    }
  }
  for (const [name, b] of right) {
    if (left.has(name)) continue;
    const path = prefix + name;
    if (b.type === 'tree') subtrees.push(diffAt(trees, null, b.oid, `${path}/`, out));
    else if (blobOid(b) !== null) out.push({ path, op: 'add', hash: b.oid });
  }
  await Promise.all(subtrees);
}

async function entriesOf(trees: TreeStore, oid: string | null): Promise<Map<string, TreeEntry>> {
  const entries = oid === null ? [] : await trees.read(oid);
  return new Map(entries.filter((e) => !e.path.startsWith('.')).map((e) => [e.path, e]));
}

function treeOid(entry: TreeEntry | undefined): string | null {
  return entry?.type === 'tree' ? entry.oid : null;
}

/** A symbolic link committed with git is no file here: its blob is the target's path. */
function blobOid(entry: TreeEntry | undefined): string | null {
  return entry?.type === 'blob' && entry.mode !== SYMLINK_MODE ? entry.oid : null;
}
