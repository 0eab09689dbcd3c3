import { expect } from 'chai';
import { Bm25 } from '../../../../vault-store/knowledge/search/bm25.js';
import { SearchIndex, type IndexedPage } from '../../../../vault-store/knowledge/search/search-index.js';

/**
 * Pages whose words share a prefix, from very common to rare ("kap0" is in most pages,
 * "kap39" in a few), plus words of their own ("odd7"), so a prefix has completions of every
 * frequency, as a vault's "cha" has.
 */
function pages(count: number, seed: number): IndexedPage[] {
  const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  const word = () => (next() < 0.1 ? `odd${Math.floor(next() * 60)}` : `kap${Math.floor(next() ** 3 * 40)}`);
  const text = (n: number) => Array.from({ length: n }, word).join(' ');
  return Array.from({ length: count }, (_, i) => ({
    path: `${i % 4 ? 'notes' : 'log'}/p${i}.md`,
    title: text(1 + (i % 3)),
    hash: `h${seed}`,
    tags: [],
    body: text(5 + (i % 60)),
  }));
}

/**
 * The ranking by definition: each query word stands for itself (weight 1) and, when it is
 * the last and typed on, its eight most frequent completions (weight 0.5); every page is
 * scored, each word by its best alternative, scaled by the share of words matched.
 */
function everyPageScored(index: SearchIndex, query: string, limit: number, visible?: (path: string) => boolean) {
  const bm25 = new Bm25(index.stats);
  const words = query.trim().split(' ');
  const slots = words.map((word, i) => {
    const alternatives = index.knows(word, visible) ? [{ term: word, weight: 1 }] : [];
    if (i === words.length - 1 && !query.endsWith(' ')) {
      for (const term of index.stats.expand(word, 8, (t) => index.knows(t, visible))) alternatives.push({ term, weight: 0.5 });
    }
    return alternatives.map(({ term, weight }) => ({ id: index.stats.id(term)!, weight, idf: index.stats.idf(index.stats.id(term)!) }));
  });
  const scored = [];
  for (const doc of index.docs) {
    if (!doc || (visible && !visible(doc.path))) continue;
    let total = 0;
    let matched = 0;
    for (const slot of slots) {
      const best = Math.max(0, ...slot.map((alt) => alt.weight * bm25.score(doc.terms, alt.id, alt.idf)));
      if (best > 0) matched += 1;
      total += best;
    }
    if (total > 0) scored.push({ path: doc.path, score: (total * matched) / slots.length });
  }
  const ranked = scored.sort((a, b) => b.score - a.score || (a.path < b.path ? -1 : 1)).slice(0, limit);
  return ranked.map((r) => ({ path: r.path, score: Math.round(r.score * 1000) / 1000 }));
}

describe('search ranking with completions', () => {
  const index = new SearchIndex();
  for (const page of pages(1500, 3)) index.upsert(page);
  pages(100, 4).forEach((page, i) => index.upsert({ ...page, path: `notes/p${i * 7}.md` }));
  for (let i = 2; i < 1500; i += 11) index.remove(`log/p${i}.md`);
  const queries = ['odd3 kap', 'odd17 kap1', 'kap2 kap3', 'odd40 odd5 kap3', 'kap0 kap', 'odd9 kap', 'kap39 kap1', 'odd1 odd'];

  it('ranks a query ending in half a word exactly as scoring every page would', () => {
    for (const query of queries) {
      for (const limit of [1, 10, 40]) {
        const { results } = index.search(query, { limit });
        expect(
          results.map((r) => ({ path: r.path, score: r.score })),
          `${query} (${limit})`,
        ).to.deep.equal(everyPageScored(index, query, limit));
      }
    }
  });

  it('stays exact when a filter after ranking rejects most of the best pages', () => {
    const visible = (path: string) => path.startsWith('log/') || path.endsWith('3.md');
    for (const query of queries) {
      const { results } = index.search(query, { limit: 10, visible });
      expect(
        results.map((r) => ({ path: r.path, score: r.score })),
        query,
      ).to.deep.equal(everyPageScored(index, query, 10, visible));
    }
  });
});
