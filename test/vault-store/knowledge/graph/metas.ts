import { pageMeta, type PageMeta } from '../../../../vault-store/knowledge/page-meta.js';
import { hashBlob } from '../../../../vault-store/git/hash-blob.js';
import { LinkGraph } from '../../../../vault-store/knowledge/graph/link-graph.js';

const encoder = new TextEncoder();

/** PageMeta of a page with this content, parsed the way the index parses it. */
export function metaOf(path: string, content: string): PageMeta {
  const bytes = encoder.encode(content);
  const { body: _, frontmatter: __, ...meta } = pageMeta(path, hashBlob(bytes), bytes);
  return meta;
}

/** Path → content, as a PageMeta map. */
export function metasOf(pages: Record<string, string>): Map<string, PageMeta> {
  return new Map(Object.entries(pages).map(([path, content]) => [path, metaOf(path, content)]));
}

export function graphOf(pages: Record<string, string>): { metas: Map<string, PageMeta>; graph: LinkGraph } {
  const metas = metasOf(pages);
  return { metas, graph: LinkGraph.build(metas.values()) };
}

/** Everything a graph answers, for comparing an incrementally kept graph with a fresh build. */
export function snapshot(graph: LinkGraph, paths: Iterable<string>) {
  const sortedPaths = [...paths].sort();
  return {
    edges: graph.edges(),
    unresolved: graph.unresolved(),
    pages: sortedPaths.map((path) => ({
      path,
      backlinks: graph.backlinks(path),
      outgoing: graph.outgoing(path),
      links: graph.links(path).map(({ target, kind, line, resolved }) => ({ target, kind, line, resolved })),
    })),
  };
}
