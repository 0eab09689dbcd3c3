import { QuireError } from '../../errors.js';
import type { FileKind } from '../../paths.js';
import type { PageMeta } from '../page-meta.js';
import { AttachmentRefs } from './attachment-refs.js';
import type { GraphEdge, LinkGraph, UnresolvedLink } from './link-graph.js';

export const DEFAULT_GRAPH_DEPTH = 1;
/** Depth 5 already reaches most of a densely linked vault; deeper asks for the whole graph. */
export const MAX_GRAPH_DEPTH = 5;

/** Which pages the caller may see; hidden pages vanish from every view as if absent. */
export type Visible = (path: string) => boolean;

export interface GraphNode {
  path: string;
  /** A page's title; an attachment's file name. */
  title: string;
  tags: string[];
  kind: FileKind;
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
  /** The vault's attachments: those pages link to or embed are nodes too, and may be the centre. */
  attachments?: readonly string[];
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

function* shownPages(metas: ReadonlyMap<string, PageMeta>, shown: Visible): Generator<string> {
  for (const path of metas.keys()) if (shown(path)) yield path;
}

/** What a view shows: the pages, and the attachments (those `visible` accepts) with who links to them. */
function scope(metas: ReadonlyMap<string, PageMeta>, visible: Visible | undefined, attachments: readonly string[] = []) {
  const shown = shownIn(metas, visible);
  const refs = new AttachmentRefs(metas, shownPages(metas, shown), visible ? attachments.filter(visible) : attachments);
  return { shown, refs };
}

/** Pages within `depth` of any of `starts` (see LinkGraph.neighbourhood); none for a negative depth. */
function around(graph: LinkGraph, starts: readonly string[], depth: number, shown: Visible): string[] {
  if (depth < 0) return [];
  return [...new Set(starts.flatMap((start) => graph.neighbourhood(start, depth, shown)))].sort();
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
  const { shown, refs } = scope(metas, options.visible, options.attachments);
  let paths: string[];
  let files: string[];
  if (options.path !== undefined) {
    const depth = checkDepth(options.depth ?? DEFAULT_GRAPH_DEPTH);
    const centre = options.path;
    // Attachments are leaves: one step beyond the pages that reach them.
    if (refs.has(centre)) {
      const sources = refs.sources(centre);
      paths = around(graph, sources, depth - 1, shown);
      files = [centre, ...around(graph, sources, depth - 2, shown).flatMap((page) => refs.targets(page))];
    } else {
      if (!shown(centre)) throw notFound(centre);
      paths = graph.neighbourhood(centre, depth, shown);
      files = around(graph, [centre], depth - 1, shown).flatMap((page) => refs.targets(page));
    }
  } else {
    paths = [...metas.keys()].filter(shown).sort();
    files = refs.referenced();
  }
  const inView = new Set([...paths, ...files]);
  const nodes: GraphNode[] = paths.map((path) => {
    const meta = metas.get(path)!;
    const out = graph.outDegree(path, shown) + refs.targets(path).length;
    return { path, title: meta.title, tags: meta.tags, kind: 'page', in: graph.inDegree(path, shown), out };
  });
  for (const path of inView) {
    if (refs.has(path))
      nodes.push({
        path,
        title: path.slice(path.lastIndexOf('/') + 1),
        tags: [],
        kind: 'attachment',
        in: refs.sources(path).length,
        out: 0,
      });
  }
  nodes.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  return {
    nodes,
    edges: paths.flatMap((path) => [...graph.edgesFrom(path), ...refs.edgesFrom(path)].filter((e) => inView.has(e.target))),
    unresolved: paths.flatMap((path) => graph.unresolvedFrom(path, shown)),
  };
}

/** The pages linking to `path`: a page, or an attachment of `attachments` (pages embedding or linking it). */
export function backlinksView(
  metas: ReadonlyMap<string, PageMeta>,
  graph: LinkGraph,
  path: string,
  visible?: Visible,
  attachments?: readonly string[],
): BacklinksView {
  const shown = shownIn(metas, visible);
  if (shown(path)) return withTitles(metas, path, graph.backlinks(path).filter(shown));
  const { refs } = scope(metas, visible, attachments);
  if (!refs.has(path)) throw notFound(path);
  return withTitles(metas, path, refs.sources(path));
}

function withTitles(metas: ReadonlyMap<string, PageMeta>, path: string, sources: readonly string[]): BacklinksView {
  return { path, backlinks: sources.map((source) => ({ path: source, title: metas.get(source)!.title })) };
}
