import type { PageLink } from '../../page.js';
import type { PageMeta } from '../page-meta.js';
import { linkQuery, nameKey, pageKey, type LinkQuery } from './link-query.js';
import { NameIndex } from './name-index.js';

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

interface Resolved extends GraphLink {
  query: LinkQuery;
}

interface Node {
  aliasKeys: string[];
  links: Resolved[];
  /** Distinct targets other than the page itself, with the kind of their first link. */
  out: Map<string, LinkKind>;
}

function nodeOf(meta: PageMeta): Node {
  const links: Resolved[] = [];
  for (const link of meta.links) {
    const query = linkQuery(link);
    if (query) links.push({ target: link.target, kind: link.kind, line: link.line, resolved: null, query });
  }
  return { aliasKeys: [...new Set(meta.aliases.map(nameKey))], links, out: new Map() };
}

function countOf(paths: IterableIterator<string> | undefined, visible?: (path: string) => boolean): number {
  let n = 0;
  for (const path of paths ?? []) if (!visible || visible(path)) n++;
  return n;
}

function sorted(items: Iterable<string>): string[] {
  return [...items].sort();
}

/**
 * Who links to whom, resolved the way Obsidian resolves links. Kept current by `upsert`
 * and `remove` inside every write, so an update re-resolves only the links whose name
 * gained or lost a page (or alias); the result always equals a fresh `build`.
 * Self-links count as resolved links but are no edges: they connect a page to nothing.
 */
export class LinkGraph {
  private readonly names = new NameIndex();
  private readonly nodes = new Map<string, Node>();
  /** target → source → number of links (a source may link a page several times). */
  private readonly incoming = new Map<string, Map<string, number>>();
  /** name key → sources holding a link whose resolution depends on that name. */
  private readonly dependents = new Map<string, Set<string>>();

  static build(metas: Iterable<PageMeta>): LinkGraph {
    const graph = new LinkGraph();
    // Index every name first so each link is resolved once, against the whole vault.
    for (const meta of metas) graph.index(meta.path, nodeOf(meta), true);
    for (const path of graph.nodes.keys()) graph.link(path);
    return graph;
  }

  upsert(meta: PageMeta): void {
    const old = this.nodes.get(meta.path);
    const next = nodeOf(meta);
    let changed: string[];
    if (old) {
      this.unlink(meta.path);
      this.unindex(meta.path, old, false);
      changed = [...old.aliasKeys.filter((k) => !next.aliasKeys.includes(k)), ...next.aliasKeys.filter((k) => !old.aliasKeys.includes(k))];
    } else {
      changed = [pageKey(meta.path), ...next.aliasKeys];
    }
    this.index(meta.path, next, !old);
    this.link(meta.path);
    this.relinkDependents(changed, meta.path);
  }

  remove(path: string): void {
    const old = this.nodes.get(path);
    if (!old) return;
    this.unlink(path);
    this.unindex(path, old, true);
    this.nodes.delete(path);
    this.relinkDependents([pageKey(path), ...old.aliasKeys], path);
  }

  has(path: string): boolean {
    return this.nodes.has(path);
  }

  get size(): number {
    return this.nodes.size;
  }

  /** Pages linking to `path`, sorted. */
  backlinks(path: string): string[] {
    return sorted(this.incoming.get(path)?.keys() ?? []);
  }

  /** Pages `path` links to, sorted. */
  outgoing(path: string): string[] {
    return sorted(this.nodes.get(path)?.out.keys() ?? []);
  }

  /** Pages linking to `path` (only those `visible` accepts, when given). */
  inDegree(path: string, visible?: (path: string) => boolean): number {
    return countOf(this.incoming.get(path)?.keys(), visible);
  }

  /** Pages `path` links to (only those `visible` accepts, when given). */
  outDegree(path: string, visible?: (path: string) => boolean): number {
    return countOf(this.nodes.get(path)?.out.keys(), visible);
  }

  /** Every link of `path` to a page (attachments excluded), in file order. */
  links(path: string): readonly GraphLink[] {
    return this.nodes.get(path)?.links ?? [];
  }

  /** Edges leaving `path`, sorted by target. */
  edgesFrom(path: string): GraphEdge[] {
    const out = this.nodes.get(path)?.out;
    return out ? this.outgoing(path).map((target) => ({ source: path, target, kind: out.get(target)! })) : [];
  }

  /** All edges, sorted by source then target. */
  edges(): GraphEdge[] {
    return sorted(this.nodes.keys()).flatMap((source) => this.edgesFrom(source));
  }

  /** Links that match no page, one per source and written target, sorted. */
  unresolved(): UnresolvedLink[] {
    return sorted(this.nodes.keys()).flatMap((source) => this.unresolvedFrom(source));
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
    if (!this.nodes.has(path) || !visible(path)) return [];
    const seen = new Set([path]);
    let frontier = [path];
    for (let hop = 0; hop < depth && frontier.length > 0; hop++) {
      const next: string[] = [];
      for (const page of frontier) {
        for (const other of [...(this.nodes.get(page)?.out.keys() ?? []), ...(this.incoming.get(page)?.keys() ?? [])]) {
          if (seen.has(other) || !visible(other)) continue;
          seen.add(other);
          next.push(other);
        }
      }
      frontier = next;
    }
    return sorted(seen);
  }

  private index(path: string, node: Node, isNew: boolean): void {
    this.nodes.set(path, node);
    if (isNew) this.names.addPage(path);
    for (const key of node.aliasKeys) this.names.addAlias(key, path);
  }

  private unindex(path: string, node: Node, removePage: boolean): void {
    if (removePage) this.names.removePage(path);
    for (const key of node.aliasKeys) this.names.removeAlias(key, path);
  }

  /** Re-resolves the sources whose links depend on names that gained or lost a page. */
  private relinkDependents(keys: string[], except: string): void {
    const sources = new Set<string>();
    for (const key of keys) {
      for (const source of this.dependents.get(key) ?? []) if (source !== except) sources.add(source);
    }
    for (const source of sources) {
      this.unlink(source);
      this.link(source);
    }
  }

  private link(source: string): void {
    const node = this.nodes.get(source)!;
    for (const link of node.links) {
      link.resolved = this.names.resolve(link.query, source);
      let deps = this.dependents.get(link.query.key);
      if (!deps) this.dependents.set(link.query.key, (deps = new Set()));
      deps.add(source);
      const target = link.resolved;
      if (target === null || target === source) continue;
      if (!node.out.has(target)) node.out.set(target, link.kind);
      let from = this.incoming.get(target);
      if (!from) this.incoming.set(target, (from = new Map()));
      from.set(source, (from.get(source) ?? 0) + 1);
    }
  }

  private unlink(source: string): void {
    const node = this.nodes.get(source)!;
    for (const link of node.links) {
      const deps = this.dependents.get(link.query.key);
      deps?.delete(source);
      if (deps?.size === 0) this.dependents.delete(link.query.key);
      const target = link.resolved;
      if (target === null || target === source) continue;
      const from = this.incoming.get(target)!;
      const count = from.get(source)! - 1;
      if (count > 0) from.set(source, count);
      else from.delete(source);
      if (from.size === 0) this.incoming.delete(target);
    }
    node.out.clear();
  }

  /** Rough heap bytes (a placeholder estimate): per page its node, per link its entry here and in `incoming`. */
  memoryBytes(): number {
    let bytes = 0;
    for (const [path, node] of this.nodes) bytes += 250 + path.length + node.links.length * 150 + node.out.size * 120;
    return bytes;
  }
}
