import { SYMLINK_MODE, type TreeEntry } from '../git/tree-parse.js';
import type { TreeStore } from '../git/tree-store.js';
import { isPagePath } from '../paths.js';

export interface PathChange {
  path: string;
  op: 'add' | 'modify' | 'delete';
  /** Blob id after the change; null for a delete. */
  hash: string | null;
}

/** A change of any tracked entry (see diffAllFiles): links and hidden files included, with their mode. */
export interface EntryChange extends PathChange {
  /** The git mode after the change (before it, for a delete). */
  mode: string;
  /** Blob id before the change; null for an add. */
  before: string | null;
}

/**
 * File changes (pages and attachments) between two trees. Subtrees with equal ids are
 * skipped without reading them, and parsed trees come from the repo's tree memo, so a
 * commit that touched one page costs a few tree lookups however large the vault is. A path
 * that turns from file into folder (or back) shows as a delete plus adds. Hidden folders
 * are never read: they hold no page and nothing the vault serves.
 */
export async function diffFiles(trees: TreeStore, before: string | null, after: string | null): Promise<PathChange[]> {
  const out: EntryChange[] = [];
  await diffAt(trees, before, after, '', out, false);
  return sortByPath(out.map(({ path, op, hash }) => ({ path, op, hash })));
}

/**
 * Every tracked entry that changed between two trees, hidden files and symbolic links
 * included: what the vault's manifest follows when the branch moves outside the server.
 * A change of kind (file to link) is a modify with the new mode.
 */
export async function diffAllFiles(trees: TreeStore, before: string | null, after: string | null): Promise<EntryChange[]> {
  const out: EntryChange[] = [];
  await diffAt(trees, before, after, '', out, true);
  return sortByPath(out);
}

/** Page changes between two trees (see diffFiles). */
export async function diffPages(trees: TreeStore, before: string | null, after: string | null): Promise<PathChange[]> {
  return (await diffFiles(trees, before, after)).filter((c) => isPagePath(c.path));
}

export function sortByPath<T extends { path: string }>(changes: T[]): T[] {
  return changes.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

async function diffAt(
  trees: TreeStore,
  before: string | null,
  after: string | null,
  prefix: string,
  out: EntryChange[],
  all: boolean,
): Promise<void> {
  if (before === after) return;
  const [left, right] = await Promise.all([entriesOf(trees, before, all), entriesOf(trees, after, all)]);
  const subtrees: Promise<void>[] = [];
  for (const [name, a] of left) {
    const b = right.get(name);
    if (b && b.oid === a.oid && b.mode === a.mode) continue;
    const path = prefix + name;
    if (a.type === 'tree' || b?.type === 'tree') {
      subtrees.push(diffAt(trees, treeOid(a), treeOid(b), `${path}/`, out, all));
    }
    const [was, now] = [blobOf(a, all), blobOf(b, all)];
    if (was?.oid !== now?.oid || (all && was?.mode !== now?.mode)) {
      const before = was?.oid ?? null;
      if (now === undefined) out.push({ path, op: 'delete', hash: null, mode: was!.mode, before });
      else out.push({ path, op: was === undefined ? 'add' : 'modify', hash: now.oid, mode: now.mode, before });
    }
  }
  for (const [name, b] of right) {
    if (left.has(name)) continue;
    const path = prefix + name;
    if (b.type === 'tree') subtrees.push(diffAt(trees, null, b.oid, `${path}/`, out, all));
    else if (blobOf(b, all)) out.push({ path, op: 'add', hash: b.oid, mode: b.mode, before: null });
  }
  await Promise.all(subtrees);
}

async function entriesOf(trees: TreeStore, oid: string | null, all: boolean): Promise<Map<string, TreeEntry>> {
  const entries = oid === null ? [] : await trees.read(oid);
  return new Map(entries.filter((e) => all || !e.path.startsWith('.')).map((e) => [e.path, e]));
}

function treeOid(entry: TreeEntry | undefined): string | null {
  return entry?.type === 'tree' ? entry.oid : null;
}

/**
 * The blob an entry holds, if any; submodules hold none. A symbolic link committed with git
 * is no file for the change feed (its blob is the target's path); `all` counts it.
 */
function blobOf(entry: TreeEntry | undefined, all: boolean): TreeEntry | undefined {
  return entry?.type === 'blob' && (all || entry.mode !== SYMLINK_MODE) ? entry : undefined;
}
