import { QuireError } from '../../errors.js';
import type { PageMeta } from '../page-meta.js';
import type { GraphEdge, LinkGraph, UnresolvedLink } from './link-graph.js';

export const DEFAULT_GRAPH_DEPTH = 1;
/** Depth 5 already reaches most of a densely linked vault; deeper asks for the whole graph. */
export const MAX_GRAPH_DEPTH = 5;

/** Which pages the caller may see; hidden pages vanish from every view as if absent. */
export type Visible = (path: string) => boolean;

export interface GraphNode {
  path: string;
  title: string;
  tags: string[];
  in: number;
  out: number;
}

export interface GraphView {
  nodes: GraphNode[];
  edges: GraphEdge[];
  unresolved: UnresolvedLink[];
}

export interface GraphViewOptions {
  /** Centre of a neighbourhood view; the whole vault when absent. */
  path?: string;
  depth?: number;
  visible?: Visible;
}

export interface BacklinksView {
  path: string;
  backlinks: { path: string; title: string }[];
}

/** Pages that exist in `metas` and pass `visible`: the one test every view applies. */
export function shownIn(metas: ReadonlyMap<string, PageMeta>, visible: Visible | undefined): Visible {
  return visible ? (path) => metas.has(path) && visible(path) : (path) => metas.has(path);
}

function notFound(path: string): QuireError {
  return new QuireError('NOT_FOUND', `No page at ${path}`, { path });
}

function checkDepth(depth: number): number {
  if (!Number.isInteger(depth) || depth < 0 || depth > MAX_GRAPH_DEPTH) {
    throw new QuireError('INVALID_REQUEST', `depth must be an integer from 0 to ${MAX_GRAPH_DEPTH}`, { depth });
  }
  return depth;
}

/**
 * The graph as the API returns it. A link to a hidden page is reported as unresolved, like
 * a link to no page: dropping it would reveal that some page answers the written name.
 */
export function graphView(metas: ReadonlyMap<string, PageMeta>, graph: LinkGraph, options: GraphViewOptions = {}): GraphView {
  const shown = shownIn(metas, options.visible);
  let paths: string[];
  if (options.path !== undefined) {
    if (!shown(options.path)) throw notFound(options.path);
    paths = graph.neighbourhood(options.path, checkDepth(options.depth ?? DEFAULT_GRAPH_DEPTH), shown);
  } else {
    paths = [...metas.keys()].filter(shown).sort();
  }
  const inView = new Set(paths);
  const nodes = paths.map((path) => {
    const meta = metas.get(path)!;
    return { path, title: meta.title, tags: meta.tags, in: graph.inDegree(path, shown), out: graph.outDegree(path, shown) };
  });
  return {
    nodes,
    edges: paths.flatMap((path) => graph.edgesFrom(path).filter((e) => inView.has(e.target))),
    unresolved: paths.flatMap((path) => graph.unresolvedFrom(path, shown)),
  };
}

export function backlinksView(metas: ReadonlyMap<string, PageMeta>, graph: LinkGraph, path: string, visible?: Visible): BacklinksView {
  const shown = shownIn(metas, visible);
  if (!shown(path)) throw notFound(path);
  const backlinks = graph
    .backlinks(path)
    .filter(shown)
    .map((source) => ({ path: source, title: metas.get(source)!.title }));
  return { path, backlinks };
}
