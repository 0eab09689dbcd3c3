import type { TreeEntry } from 'isomorphic-git';
import { serializeTree, sortTree, treeEntrySize } from './object-writer.js';

export const EMPTY_TREE = '4b825dc642cb6eb9a060e54bf8d69288fbee4904';
/** Bodies of trees this store wrote, kept to patch: each commit's trees are the last one's with an id or two changed. */
const MAX_BODIES = 64;

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
  private readonly bodies = new Map<string, Buffer>();

  constructor(
    /** Reads and parses one tree object. */
    private readonly readTree: (oid: string) => Promise<TreeEntry[]>,
    /** Stores a tree's body as an object (see PendingObjects); returns its id. */
    private readonly store: (body: Buffer) => string,
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
    return this.writeBody(sorted, serializeTree(sorted));
  }

  private async writeBody(sorted: TreeEntry[], body: Buffer): Promise<string> {
    const oid = this.store(body);
    this.remember(oid, sorted);
    if (this.bodies.size >= MAX_BODIES) this.bodies.delete(this.bodies.keys().next().value!);
    this.bodies.set(oid, body);
    return oid;
  }

  /**
   * The tree `oid` with some entries' ids replaced (same names, same modes), as entries and
   * body: its body copied with 20 bytes changed per entry instead of re-serialised (a folder
   * of 1,000 pages is 60 KB, and serialising it was the write path's largest JavaScript
   * cost). Undefined when its body is not kept or an update adds, removes or retypes an entry.
   */
  private patched(oid: string, entries: TreeEntry[], updates: Map<string, TreeEntry | null>) {
    const body = this.bodies.get(oid);
    if (!body) return undefined;
    const next = entries.slice();
    const out = Buffer.from(body);
    let left = updates.size;
    for (let i = 0, at = 0; i < entries.length && left > 0; i++) {
      const entry = entries[i];
      at += treeEntrySize(entry);
      const update = updates.get(entry.path);
      if (update === undefined) continue;
      if (update === null || update.mode !== entry.mode) return undefined;
      out.write(update.oid, at - 20, 'hex');
      next[i] = update;
      left--;
    }
    return left === 0 ? { entries: next, body: out } : undefined;
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
    const old = await this.read(treeOid);
    // Each changed name's new entry, or null when it goes.
    const updates = new Map<string, TreeEntry | null>();
    const byChild = new Map<string, { parts: string[]; oid: string | null }[]>();
    for (const change of changes) {
      const [name, ...rest] = change.parts;
      if (rest.length === 0) updates.set(name, change.oid === null ? null : { path: name, oid: change.oid, mode: '100644', type: 'blob' });
      else byChild.set(name, [...(byChild.get(name) ?? []), { parts: rest, oid: change.oid }]);
    }
    for (const [name, childChanges] of byChild) {
      const existing = updates.has(name) ? updates.get(name) : old.find((e) => e.path === name);
      const base = existing?.type === 'tree' ? existing.oid : EMPTY_TREE;
      const oid = await this.applyAt(base, childChanges);
      updates.set(name, oid === EMPTY_TREE ? null : { path: name, oid, mode: '040000', type: 'tree' });
    }
    const patched = this.patched(treeOid, old, updates);
    if (patched) return this.writeBody(patched.entries, patched.body);
    const entries = new Map(old.map((e) => [e.path, e]));
    for (const [name, entry] of updates) {
      if (entry === null) entries.delete(name);
      else entries.set(name, entry);
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
