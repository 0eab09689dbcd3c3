import { expect } from 'chai';
import { Bm25 } from '../../../../vault-store/knowledge/search/bm25.js';
import { containsPhrase } from '../../../../vault-store/knowledge/search/query.js';
import type { SearchIndex } from '../../../../vault-store/knowledge/search/search-index.js';
import { tokenize } from '../../../../vault-store/knowledge/search/tokenize.js';

/**
 * The ranking by definition, scoring every page: each query word stands for itself (weight 1)
 * and, when it is the last and typed on, its eight most frequent completions (weight 0.5);
 * each word counts by its best alternative, scaled by the share of words matched. A quoted
 * query keeps only the pages holding the phrase.
 */
export function everyPageScored(index: SearchIndex, query: string, limit: number, visible?: (path: string) => boolean) {
  const bm25 = new Bm25(index.stats);
  const phrase = /^".*"$/.test(query);
  const words = tokenize(query);
  const slots = words.map((word, i) => {
    const alternatives = index.knows(word, visible) ? [{ term: word, weight: 1 }] : [];
    if (!phrase && i === words.length - 1 && word.length >= 3 && !query.endsWith(' ')) {
      for (const term of index.stats.expand(word, 8, (t) => index.knows(t, visible))) alternatives.push({ term, weight: 0.5 });
    }
    return alternatives.map(({ term, weight }) => ({ id: index.stats.id(term)!, weight, idf: index.stats.idf(index.stats.id(term)!) }));
  });
  const scored = [];
  for (const doc of index.docs) {
    if (!doc || (visible && !visible(doc.path))) continue;
    if (phrase && !containsPhrase(doc.title, words) && !containsPhrase(index.body(doc), words)) continue;
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

/**
 * Asserts that the index's search gives exactly what scoring every page gives, at each of
 * `limits`: the search runs once per limit, the reference once for the largest (a shorter
 * list is its head: ties are broken by path).
 */
export function expectExact(
  index: SearchIndex,
  query: string,
  limits: number | readonly number[],
  visible?: (path: string) => boolean,
): void {
  const asked = typeof limits === 'number' ? [limits] : limits;
  const reference = everyPageScored(index, query, Math.max(...asked), visible);
  for (const limit of asked) {
    const { results } = index.search(query, { limit, visible });
    expect(
      results.map((r) => ({ path: r.path, score: r.score })),
      `${query} (${limit})`,
    ).to.deep.equal(reference.slice(0, limit));
  }
}
