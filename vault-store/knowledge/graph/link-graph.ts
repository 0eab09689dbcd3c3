import type { PageLink } from '../../page.js';
import { toEnd } from '../../slices.js';
import { pageLinks, type PageMeta } from '../page-meta.js';
import { linkQuery, nameKey, pageKey } from './link-query.js';
import { ListArena } from './list-arena.js';
import { NameIndex } from './name-index.js';
import { PageLinks, UNRESOLVED } from './page-links.js';
import { KINDS } from './target-pool.js';

export type LinkKind = PageLink['kind'];

/** One link to a page as written in its source, with the page it resolves to (or null). */
export interface GraphLink extends PageLink {
  resolved: string | null;
}

export interface GraphEdge {
  source: string;
  target: string;
  /** How the source first links the target. */
  kind: LinkKind;
}

export interface UnresolvedLink {
  source: string;
  /** The link as written (wiki name, or vault path for markdown links). */
  target: string;
}

const NO_ALIASES: readonly string[] = [];
// Heap per page beyond the arenas (path map entry, slots, name-index entry): measured on
// generated 10k and 30k vaults.
const PAGE_BYTES = 140;

function sorted(items: Iterable<string>): string[] {
  return [...items].sort();
}

/**
 * Who links to whom, resolved the way Obsidian resolves links. Kept current by `upsert`
 * and `remove` inside every write, so an update re-resolves only the links whose name
 * gained or lost a page (or alias); the result always equals a fresh `build`.
 * Self-links count as resolved links but are no edges: they connect a page to nothing.
 *
 * No object per link: pages are numbered (ids are reused); their links are `PageLinks`,
 * and the links into each page a sorted list of source ids in a `ListArena`.
 */
export class LinkGraph {
  private readonly names = new NameIndex();
  private readonly linkLists = new PageLinks();
  private readonly ids = new Map<string, number>();
  private readonly paths: string[] = [];
  private readonly free: number[] = [];
  private readonly aliasKeysOf: (readonly string[])[] = [];
  /** target id → source ids, one per link (a source may link a page several times), sorted. */
  private readonly incoming = new ListArena();

  static build(metas: Iterable<PageMeta>): LinkGraph {
    const graph = new LinkGraph();
    // Index every name first so each link is resolved once, against the whole vault.
    for (const meta of metas) graph.add(meta);
    const n = graph.paths.length;
    const counts = new Uint32Array(n);
    for (let source = 0; source < n; source++) {
      graph.resolve(source);
      graph.forEachEdge(source, (target) => counts[target]++);
    }
    // Incoming lists at their exact size, filled in source order so they come out sorted.
    for (let target = 0; target < n; target++) graph.incoming.reset(target, counts[target]);
    counts.fill(0);
    for (let source = 0; source < n; source++) graph.forEachEdge(source, (target) => graph.incoming.put(target, counts[target]++, source));
    graph.linkLists.trim();
    graph.incoming.trim();
    return graph;
  }

  upsert(meta: PageMeta): void {
    toEnd(this.upserting(meta));
  }

  /**
   * `upsert` a step at a time, a step per page whose links it re-resolves, for a caller that
   * gives the event loop turns between (inSlices): moving a page 1,000 pages link to
   * re-resolves each of them twice, ~130 ms at once. Between steps the graph answers as
   * before the change for the pages not yet re-resolved.
   */
  *upserting(meta: PageMeta): Generator<void> {
    const old = this.ids.get(meta.path);
    if (old === undefined) {
      const id = this.add(meta);
      this.link(id);
      yield* this.relinking([pageKey(meta.path), ...this.aliasKeysOf[id]], id);
      return;
    }
    const before = this.aliasKeysOf[old];
    this.unlink(old);
    this.clear(old, meta.path);
    this.fill(old, meta);
    const after = this.aliasKeysOf[old];
    this.link(old);
    yield* this.relinking([...before.filter((k) => !after.includes(k)), ...after.filter((k) => !before.includes(k))], old);
  }

  remove(path: string): void {
    toEnd(this.removing(path));
  }

  /** `remove` a step at a time (see `upserting`). */
  *removing(path: string): Generator<void> {
    const id = this.ids.get(path);
    if (id === undefined) return;
    const keys = [pageKey(path), ...this.aliasKeysOf[id]];
    this.unlink(id);
    this.clear(id, path);
    this.names.removePage(path);
    this.ids.delete(path);
    // Every link to it is re-resolved elsewhere first: until then its id must stay taken.
    yield* this.relinking(keys, id);
    this.paths[id] = '';
    this.incoming.release(id);
    this.free.push(id);
  }

  has(path: string): boolean {
    return this.ids.has(path);
  }

  get size(): number {
    return this.ids.size;
  }

  /** Approximate bytes the graph holds, for the memory budget; page paths are the metadata's. */
  memoryBytes(): number {
    let bytes = this.linkLists.memoryBytes() + this.incoming.memoryBytes() + this.ids.size * PAGE_BYTES;
    for (const keys of this.aliasKeysOf) for (const key of keys) bytes += PAGE_BYTES + key.length * 4;
    return bytes;
  }

  /** Pages linking to `path`, sorted. */
  backlinks(path: string): string[] {
    const id = this.ids.get(path);
    return id === undefined ? [] : sorted(this.pathsOf(this.sources(id)));
  }

  /** The page a wiki link to `target` written in page `from` reaches, as the graph resolves links; null when none. */
  resolveLink(target: string, from: string): string | null {
    const query = linkQuery({ target, kind: 'wiki', line: 0 });
    return query ? this.names.resolve(query, from) : null;
  }

  /** Pages `path` links to, sorted. */
  outgoing(path: string): string[] {
    const id = this.ids.get(path);
    return id === undefined ? [] : sorted(this.pathsOf(this.out(id).keys()));
  }

  /** Pages linking to `path` (only those `visible` accepts, when given). */
  inDegree(path: string, visible?: (path: string) => boolean): number {
    const id = this.ids.get(path);
    return id === undefined ? 0 : this.count(this.sources(id), visible);
  }

  /** Pages `path` links to (only those `visible` accepts, when given). */
  outDegree(path: string, visible?: (path: string) => boolean): number {
    const id = this.ids.get(path);
    return id === undefined ? 0 : this.count(this.out(id).keys(), visible);
  }

  /** Every link of `path` to a page (attachments excluded), in file order. */
  links(path: string): readonly GraphLink[] {
    const id = this.ids.get(path);
    if (id === undefined) return [];
    const result: GraphLink[] = [];
    for (let i = 0; i < this.linkLists.count(id); i++) {
      const resolved = this.linkLists.resolved(id, i);
      result.push({ ...this.linkLists.link(id, i), resolved: resolved === UNRESOLVED ? null : this.paths[resolved] });
    }
    return result;
  }

  /** Edges leaving `path`, sorted by target. */
  edgesFrom(path: string): GraphEdge[] {
    const id = this.ids.get(path);
    if (id === undefined) return [];
    const edges = [...this.out(id)].map(([target, kind]) => ({ source: path, target: this.paths[target], kind: KINDS[kind] }));
    return edges.sort((a, b) => (a.target < b.target ? -1 : a.target > b.target ? 1 : 0));
  }

  /** All edges, sorted by source then target. */
  edges(): GraphEdge[] {
    return sorted(this.ids.keys()).flatMap((source) => this.edgesFrom(source));
  }

  /** Links that match no page, one per source and written target, sorted. */
  unresolved(): UnresolvedLink[] {
    return sorted(this.ids.keys()).flatMap((source) => this.unresolvedFrom(source));
  }

  /** With `shown`, a link to a page it rejects is unresolved too: for that caller the page is not there. */
  unresolvedFrom(source: string, shown: (path: string) => boolean = () => true): UnresolvedLink[] {
    const open = this.links(source).filter((l) => l.resolved === null || !shown(l.resolved));
    if (!open.length) return [];
    return sorted(new Set(open.map((l) => l.target))).map((target) => ({ source, target }));
  }

  /**
   * Pages within `depth` links of `path` in either direction, `path` included, sorted.
   * Traversal never passes through a page `visible` rejects, so hidden pages can't bridge.
   */
  neighbourhood(path: string, depth: number, visible: (path: string) => boolean = () => true): string[] {
    const start = this.ids.get(path);
    if (start === undefined || !visible(path)) return [];
    const seen = new Set([start]);
    let frontier = [start];
    for (let hop = 0; hop < depth && frontier.length > 0; hop++) {
      const next: number[] = [];
      for (const page of frontier) {
        for (const other of [...this.out(page).keys(), ...this.sources(page)]) {
          if (seen.has(other) || !visible(this.paths[other])) continue;
          seen.add(other);
          next.push(other);
        }
      }
      frontier = next;
    }
    return sorted(this.pathsOf(seen));
  }

  /** Each page linking to `id` once, in id order. */
  private *sources(id: number): Generator<number> {
    let last = -1;
    for (let i = 0; i < this.incoming.length(id); i++) {
      const source = this.incoming.get(id, i);
      if (source !== last) yield source;
      last = source;
    }
  }

  private *pathsOf(ids: Iterable<number>): Generator<string> {
    for (const id of ids) yield this.paths[id];
  }

  private count(ids: Iterable<number>, visible?: (path: string) => boolean): number {
    let n = 0;
    for (const id of ids) if (!visible || visible(this.paths[id])) n++;
    return n;
  }

  /** Distinct pages `id` links to, other than itself, with the kind bit of the first link to each. */
  private out(id: number): Map<number, number> {
    const out = new Map<number, number>();
    for (let i = 0; i < this.linkLists.count(id); i++) {
      const target = this.linkLists.resolved(id, i);
      if (target !== UNRESOLVED && target !== id && !out.has(target)) out.set(target, this.linkLists.kind(id, i));
    }
    return out;
  }

  private forEachEdge(source: number, visit: (target: number) => void): void {
    for (let i = 0; i < this.linkLists.count(source); i++) {
      const target = this.linkLists.resolved(source, i);
      if (target !== UNRESOLVED && target !== source) visit(target);
    }
  }

  /** Numbers a new page and indexes its names; its links are resolved by the caller. */
  private add(meta: PageMeta): number {
    const id = this.free.pop() ?? this.paths.length;
    this.ids.set(meta.path, id);
    this.paths[id] = meta.path;
    this.names.addPage(meta.path);
    this.fill(id, meta);
    return id;
  }

  /** Stores the page's links (unresolved) and aliases. */
  private fill(id: number, meta: PageMeta): void {
    this.linkLists.set(id, pageLinks(meta));
    const aliasKeys = [...new Set(meta.aliases.map(nameKey))];
    this.aliasKeysOf[id] = aliasKeys.length ? aliasKeys : NO_ALIASES;
    for (const key of aliasKeys) this.names.addAlias(key, meta.path);
  }

  /** Drops what `fill` stored; the page must be unlinked first. */
  private clear(id: number, path: string): void {
    this.linkLists.clear(id);
    for (const key of this.aliasKeysOf[id]) this.names.removeAlias(key, path);
    this.aliasKeysOf[id] = NO_ALIASES;
  }

  /** Re-resolves the sources whose links depend on names that gained or lost a page, a step each. */
  private *relinking(keys: string[], except: number): Generator<void> {
    const sources = this.linkLists.dependentsOf(keys);
    sources.delete(except);
    for (const source of sources) {
      this.unlink(source);
      this.link(source);
      yield;
    }
  }

  /** Sets where each link of `source` points. */
  private resolve(source: number): void {
    const path = this.paths[source];
    for (let i = 0; i < this.linkLists.count(source); i++) {
      const target = this.names.resolve(this.linkLists.query(source, i), path);
      this.linkLists.resolve(source, i, target === null ? UNRESOLVED : this.ids.get(target)!);
    }
  }

  private link(source: number): void {
    this.resolve(source);
    for (const [target, times] of this.edgeCounts(source)) this.incoming.insertSorted(target, source, times);
  }

  private unlink(source: number): void {
    for (const target of this.edgeCounts(source).keys()) this.incoming.removeAll(target, source);
  }

  /** Links from `source` per page they reach: lists change once per target, not per link. */
  private edgeCounts(source: number): Map<number, number> {
    const counts = new Map<number, number>();
    this.forEachEdge(source, (target) => counts.set(target, (counts.get(target) ?? 0) + 1));
    return counts;
  }
}
