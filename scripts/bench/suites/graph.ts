/**
 * Link graph, lint and stats on the 10k-page vault: full build, one update inside a write
 * (own links changed; a new page that takes over a popular name; a rename), views, lint
 * and stats. Pages are parsed from the generated folder; no git is involved.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { hashBlob } from '../../../vault-store/git/hash-blob.js';
import { backlinksView, graphView } from '../../../vault-store/knowledge/graph/graph-view.js';
import { LinkGraph } from '../../../vault-store/knowledge/graph/link-graph.js';
import { lint } from '../../../vault-store/knowledge/lint/lint.js';
import { pageMeta, type PageMeta } from '../../../vault-store/knowledge/page-meta.js';
import { diskBytes, stats } from '../../../vault-store/knowledge/stats.js';
import { benchVault, round, summarize } from '../fixture.js';

const encoder = new TextEncoder();

function meta(path: string, bytes: Uint8Array): PageMeta {
  const { body: _, frontmatter: __, ...rest } = pageMeta(path, hashBlob(bytes), bytes);
  return rest;
}

function time(run: () => unknown, n: number): number[] {
  const samples: number[] = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    run();
    samples.push(performance.now() - t0);
  }
  return samples;
}

/** Heap and typed-array memory, after a collection (npm run bench exposes gc): otherwise a
 * collection during what is measured makes the difference meaningless, even negative. */
function held(): number {
  global.gc?.();
  const { heapUsed, external } = process.memoryUsage();
  return heapUsed + external;
}

export default async function (): Promise<Record<string, unknown>> {
  const { source, manifest } = benchVault();
  const beforeMetas = held();
  const t0 = performance.now();
  const metas = new Map(manifest.paths.map((path) => [path, meta(path, readFileSync(join(source, path)))]));
  const parseMs = performance.now() - t0;

  const heapBefore = held();
  let graph = LinkGraph.build(metas.values());
  const heapMb = (held() - heapBefore) / 2 ** 20;
  const build = summarize(time(() => (graph = LinkGraph.build(metas.values())), 5));

  // Own links change: the common write.
  const paths = manifest.paths;
  let i = 0;
  const editLinks = summarize(
    time(() => {
      const path = paths[(i * 7919) % paths.length];
      const next = meta(
        path,
        encoder.encode(`# Edit ${i}\n[[${manifest.titles[i % 1000]}]] [[${manifest.titles[(i * 31) % paths.length]}]]\n`),
      );
      i++;
      metas.set(path, next);
      graph.upsert(next);
    }, 500),
  );

  // Worst case: a root page named like the most linked page takes over all its links, then goes.
  const popular = [...metas.keys()].sort((a, b) => graph.inDegree(b) - graph.inDegree(a))[0];
  const name = popular.slice(popular.lastIndexOf('/') + 1);
  const takeover = meta(name, encoder.encode('# Shorter twin\n'));
  const inbound = graph.inDegree(popular);
  const addTwin = summarize(time(() => graph.upsert(takeover), 1));
  const removeTwin = summarize(time(() => graph.remove(name), 1));

  let r = 0;
  const rename = summarize(
    time(() => {
      const from = paths[(r * 104729) % paths.length];
      const current = metas.get(from);
      r++;
      if (!current) return;
      const to = `renamed/${r}/${from.slice(from.lastIndexOf('/') + 1)}`;
      graph.remove(from);
      metas.delete(from);
      const moved = { ...current, path: to };
      graph.upsert(moved);
      metas.set(to, moved);
    }, 200),
  );

  const fresh = LinkGraph.build(metas.values());
  const consistent =
    JSON.stringify(fresh.edges()) === JSON.stringify(graph.edges()) &&
    JSON.stringify(fresh.unresolved()) === JSON.stringify(graph.unresolved());

  const centre = [...metas.keys()].find((p) => graph.inDegree(p) > 0 && graph.inDegree(p) < 10)!;
  return {
    pages: metas.size,
    edges: graph.edges().length,
    parse_all_ms: round(parseMs),
    build_ms: build,
    metas_heap_mb: round((heapBefore - beforeMetas) / 2 ** 20),
    graph_heap_mb: round(heapMb),
    graph_memory_bytes_mb: round(graph.memoryBytes() / 2 ** 20),
    upsert_own_links_ms: editLinks,
    upsert_takeover_ms: { inbound_links: inbound, add: addTwin.p50, remove: removeTwin.p50 },
    rename_ms: rename,
    consistent_with_fresh_build: consistent,
    view_whole_ms: summarize(time(() => graphView(metas, graph), 5)),
    view_depth2_ms: summarize(time(() => graphView(metas, graph, { path: centre, depth: 2 }), 20)),
    backlinks_popular_ms: summarize(time(() => backlinksView(metas, graph, popular), 20)),
    lint_ms: summarize(time(() => lint(metas, graph, { maxPageBytes: 100_000 }), 5)),
    lint_counts: lint(metas, graph, { maxPageBytes: 100_000 }).counts,
    stats_ms: summarize(time(() => stats(metas, graph, { commits: 0, diskBytes: 0 }), 5)),
    disk_walk_ms: summarize(
      await (async () => {
        const samples: number[] = [];
        for (let k = 0; k < 3; k++) {
          const s = performance.now();
          await diskBytes(source);
          samples.push(performance.now() - s);
        }
        return samples;
      })(),
    ),
  };
}
