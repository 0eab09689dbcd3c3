import type { TreeEntry } from 'isomorphic-git';
import { serializeTree, sortTree, writeObject } from './object-writer.js';

export const EMPTY_TREE = '4b825dc642cb6eb9a060e54bf8d69288fbee4904';

/** A change to one file of a tree: new blob id, or null to remove it. */
export type TreeChange = { path: string; oid: string | null };

/** One file of a tree as the walk yields it. */
export interface TreeFile {
  path: string;
  oid: string;
  mode: string;
}

/**
 * Reads and writes git trees. Trees are immutable by id, so a bounded cache of parsed
 * trees is always correct and makes the write path touch the disk only for the trees
 * that actually change.
 */
export class TreeStore {
  private readonly parsed = new Map<string, TreeEntry[]>();

  constructor(
    /** Reads and parses one tree object. */
    private readonly readTree: (oid: string) => Promise<TreeEntry[]>,
    private readonly gitdir: string,
    private readonly written: (path: string) => void,
    private readonly maxTrees = 20_000,
  ) {}

  async read(oid: string): Promise<TreeEntry[]> {
    if (oid === EMPTY_TREE) return [];
    const hit = this.parsed.get(oid);
    if (hit) return hit;
    return this.remember(oid, await this.readTree(oid));
  }

  async write(entries: TreeEntry[]): Promise<string> {
    if (entries.length === 0) return EMPTY_TREE;
    const sorted = sortTree(entries);
    const oid = await writeObject(this.gitdir, 'tree', serializeTree(sorted), this.written);
    this.remember(oid, sorted);
    return oid;
  }

  /** How many parsed trees are held (never more than `maxTrees`). */
  get cached(): number {
    return this.parsed.size;
  }

  /** Every insert keeps the bound: writes used to add past it, so a long-running vault grew without end. */
  private remember(oid: string, tree: TreeEntry[]): TreeEntry[] {
    if (!this.parsed.has(oid) && this.parsed.size >= this.maxTrees) this.parsed.delete(this.parsed.keys().next().value!);
    this.parsed.set(oid, tree);
    return tree;
  }

  /** Blob id at `path` in the tree, or undefined. */
  async lookup(treeOid: string, path: string): Promise<string | undefined> {
    let oid = treeOid;
    const parts = path.split('/');
    for (let i = 0; i < parts.length; i++) {
      const entry = (await this.read(oid)).find((e) => e.path === parts[i]);
      if (!entry) return undefined;
      const last = i === parts.length - 1;
      if (last !== (entry.type === 'blob')) return undefined;
      oid = entry.oid;
    }
    return oid;
  }

  /**
   * Applies changes and returns the new root tree id. Only trees on the changed paths are
   * rewritten; a folder left empty disappears, as in git.
   */
  async apply(rootOid: string, changes: TreeChange[]): Promise<string> {
    return this.applyAt(
      rootOid,
      changes.map((c) => ({ parts: c.path.split('/'), oid: c.oid })),
    );
  }

  private async applyAt(treeOid: string, changes: { parts: string[]; oid: string | null }[]): Promise<string> {
    const entries = new Map((await this.read(treeOid)).map((e) => [e.path, e]));
    const byChild = new Map<string, { parts: string[]; oid: string | null }[]>();
    for (const change of changes) {
      const [name, ...rest] = change.parts;
      if (rest.length === 0) {
        if (change.oid === null) entries.delete(name);
        else entries.set(name, { path: name, oid: change.oid, mode: '100644', type: 'blob' });
      } else {
        byChild.set(name, [...(byChild.get(name) ?? []), { parts: rest, oid: change.oid }]);
      }
    }
    for (const [name, childChanges] of byChild) {
      const existing = entries.get(name);
      const base = existing?.type === 'tree' ? existing.oid : EMPTY_TREE;
      const oid = await this.applyAt(base, childChanges);
      if (oid === EMPTY_TREE) entries.delete(name);
      else entries.set(name, { path: name, oid, mode: '040000', type: 'tree' });
    }
    return this.write([...entries.values()]);
  }

  /**
   * Every file of a tree, depth first as git lists them. Subtrees are read in parallel:
   * one after another, opening a 10k-page vault spent most of its time waiting on them.
   */
  async files(treeOid: string, prefix = ''): Promise<TreeFile[]> {
    const entries = await this.read(treeOid);
    const parts = await Promise.all(
      entries.map((entry): TreeFile[] | Promise<TreeFile[]> => {
        const path = prefix + entry.path;
        if (entry.type === 'tree') return this.files(entry.oid, `${path}/`);
        return entry.type === 'blob' ? [{ path, oid: entry.oid, mode: entry.mode }] : [];
      }),
    );
    return parts.flat();
  }
}
