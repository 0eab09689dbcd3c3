import type { TreeEntry } from 'isomorphic-git';
import { serializeTree, sortTree, treeEntrySize } from './object-writer.js';

export const EMPTY_TREE = '4b825dc642cb6eb9a060e54bf8d69288fbee4904';
/**
 * What the trees kept may hold, parsed entries and bodies together: at 100k pages a folder of
 * 2,000 is ~340 KB parsed and ~120 KB of body, and the scale bench's burst of edits (one page in
 * each of 50 folders) kept 31 MB under a cap of 20,000 trees. A write needs its path's trees
 * only (the root and a folder or two); 8 MiB holds a whole 10k-page vault's trees. 16 MiB, a
 * decision between the save peak and write time at 100k (the bench's 50 edits, tree update p50):
 * unbounded 2.4–3.3 ms, 16 MiB 4.0 ms, 8 MiB 5.7–9.5 ms; a write to a folder not among the
 * ~30 last touched reads it again (~5 ms from a packed repository).
 */
const MAX_BYTES = 16 * 2 ** 20;
/** A parsed entry's heap beyond its name's characters: the object, its id as a 40-character string, the name's string header (measured: 172 bytes for a 30-character name). */
const ENTRY_BYTES = 142;

/** A change to one file of a tree: new blob id, or null to remove it. */
export type TreeChange = { path: string; oid: string | null };

/** One file of a tree as the walk yields it. */
export interface TreeFile {
  path: string;
  oid: string;
  mode: string;
}

/** A tree kept: its entries, its body when this store wrote it (to patch; see `patched`), and both's memory. */
interface Kept {
  entries: TreeEntry[];
  body: Buffer | undefined;
  bytes: number;
}

function keptBytes(entries: TreeEntry[], body: Buffer | undefined): number {
  let bytes = body?.length ?? 0;
  for (const entry of entries) bytes += ENTRY_BYTES + entry.path.length;
  return bytes;
}

/**
 * Reads and writes git trees. Trees are immutable by id, so a bounded cache of parsed
 * trees is always correct and makes the write path touch the disk only for the trees
 * that actually change. The cache is bounded by bytes, least recently used first, on every
 * insert; the tree just kept stays even when larger than the bound alone (a flat folder of
 * 100k pages), so a write to it still patches it.
 */
export class TreeStore {
  private readonly kept = new Map<string, Kept>();
  private bytes = 0;

  constructor(
    /** Reads and parses one tree object. */
    private readonly readTree: (oid: string) => Promise<TreeEntry[]>,
    /** Stores a tree's body as an object (see PendingObjects); returns its id. */
    private readonly store: (body: Buffer) => string,
    private readonly maxBytes = MAX_BYTES,
  ) {}

  async read(oid: string): Promise<TreeEntry[]> {
    return oid === EMPTY_TREE ? [] : (await this.readKept(oid)).entries;
  }

  private async readKept(oid: string): Promise<Kept> {
    const hit = this.kept.get(oid);
    if (!hit) return this.keep(oid, await this.readTree(oid), undefined);
    this.kept.delete(oid); // to the young end
    this.kept.set(oid, hit);
    return hit;
  }

  async write(entries: TreeEntry[]): Promise<string> {
    if (entries.length === 0) return EMPTY_TREE;
    const sorted = sortTree(entries);
    return this.writeBody(sorted, serializeTree(sorted));
  }

  private writeBody(sorted: TreeEntry[], body: Buffer): string {
    const oid = this.store(body);
    this.keep(oid, sorted, body);
    return oid;
  }

  /**
   * The tree `tree` with some entries' ids replaced (same names, same modes), as entries and
   * body: its body copied with 20 bytes changed per entry instead of re-serialised (a folder
   * of 1,000 pages is 60 KB, and serialising it was the write path's largest JavaScript
   * cost). Undefined when its body is not kept or an update adds, removes or retypes an entry.
   */
  private patched(tree: Kept, updates: Map<string, TreeEntry | null>) {
    const { entries, body } = tree;
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

  /** The memory the trees kept hold, estimated (never more than `maxBytes` but for the tree kept last). */
  get cachedBytes(): number {
    return this.bytes;
  }

  /** Keeps a tree as the most recently used, then drops the least recently used ones past `maxBytes`. */
  private keep(oid: string, entries: TreeEntry[], body: Buffer | undefined): Kept {
    const old = this.kept.get(oid);
    if (old) {
      this.bytes -= old.bytes;
      this.kept.delete(oid);
    }
    const tree = { entries, body: body ?? old?.body, bytes: 0 };
    tree.bytes = keptBytes(entries, tree.body);
    this.kept.set(oid, tree);
    this.bytes += tree.bytes;
    for (const [first, gone] of this.kept) {
      if (this.bytes <= this.maxBytes || first === oid) break;
      this.kept.delete(first);
      this.bytes -= gone.bytes;
    }
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
    // The tree as kept, body included, even if the subtrees read below push it out of the cache.
    const tree: Kept = treeOid === EMPTY_TREE ? { entries: [], body: undefined, bytes: 0 } : await this.readKept(treeOid);
    const old = tree.entries;
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
    const patched = this.patched(tree, updates);
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
