import type { Knowledge } from '../knowledge/knowledge.js';
import type { Pages } from '../pages.js';
import type { ContextSource } from './context-pack.js';

/**
 * A context pack's source over a vault's pages and its knowledge: ranking by search,
 * neighbours from the link graph (both directions), all of it through `visible`.
 */
export function knowledgeSource(
  pages: Pages,
  knowledge: Knowledge,
  visible: (path: string) => boolean,
  guideSummary: string,
): ContextSource {
  const titleOf = (path: string) => knowledge.metas.get(path)?.title ?? path;
  return {
    guideSummary,
    rank: (topic, limit) => knowledge.search(topic, { limit, visible }).results.map((r) => r.path),
    read: async (path) => (visible(path) && pages.vault.manifest.get(path) ? pages.read(path) : undefined),
    neighbours: (path) =>
      [...new Set([...knowledge.graph.outgoing(path), ...knowledge.graph.backlinks(path)])]
        .filter((p) => p !== path && visible(p))
        .map(titleOf),
  };
}
