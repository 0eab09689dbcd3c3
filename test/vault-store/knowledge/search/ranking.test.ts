import { expect } from 'chai';
import { Bm25 } from '../../../../vault-store/knowledge/search/bm25.js';
import { SearchIndex, type IndexedPage } from '../../../../vault-store/knowledge/search/search-index.js';

/**
 * Pages over a small, skewed vocabulary: the common words occur in most pages and often
 * nine times or more (past the last posting slot that knows its count exactly).
 */
function pages(count: number, seed: number): IndexedPage[] {
  const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  const words = Array.from({ length: 40 }, (_, i) => `w${i}`);
  const text = (n: number) => Array.from({ length: n }, () => words[Math.floor(next() ** 3 * words.length)]).join(' ');
  return Array.from({ length: count }, (_, i) => ({
    path: `notes/p${i}.md`,
    title: text(1 + (i % 3)),
    hash: `h${seed}`,
    tags: [text(1)],
    body: text(10 + (i % 90)),
  }));
}

/** The ranking by definition: every page scored, each query term through BM25, scaled by the share matched. */
function everyPageScored(index: SearchIndex, terms: string[], limit: number): { path: string; score: number }[] {
  const bm25 = new Bm25(index.stats);
  const scored = [];
  for (const doc of index.docs) {
    if (!doc) continue;
    let total = 0;
    let matched = 0;
    for (const term of terms) {
      const id = index.stats.id(term);
      const s = id === undefined || index.stats.docFreq(term) === 0 ? 0 : bm25.score(doc.terms, id, index.stats.idf(id));
      if (s > 0) matched += 1;
      total += s;
    }
    if (total > 0) scored.push({ path: doc.path, score: (total * matched) / terms.length });
  }
  const ranked = scored.sort((a, b) => b.score - a.score || (a.path < b.path ? -1 : 1)).slice(0, limit);
  return ranked.map((r) => ({ path: r.path, score: Math.round(r.score * 1000) / 1000 }));
}

describe('search ranking', () => {
  it('ranks exactly as scoring every page would, common words and repeated ones included, across updates', () => {
    const index = new SearchIndex();
    for (const page of pages(400, 1)) index.upsert(page);
    pages(60, 2).forEach((page, i) => index.upsert({ ...page, path: `notes/p${i * 5}.md` }));
    for (let i = 1; i < 400; i += 7) index.remove(`notes/p${i}.md`);
    // The last has more words than holdings track: the postings' best candidates, all of them at this size.
    const queries = [
      ['w0'],
      ['w1'],
      ['w0', 'w1'],
      ['w2', 'w9'],
      ['w0', 'w3', 'w17'],
      ['w30'],
      ['w39', 'w0'],
      Array.from({ length: 34 }, (_, i) => `w${i}`),
    ];
    for (const terms of queries) {
      // The trailing space: no completion of the last word, so the terms are exactly these.
      const { results } = index.search(`${terms.join(' ')} `, { limit: 25 });
      expect(
        results.map((r) => ({ path: r.path, score: r.score })),
        terms.join(' '),
      ).to.deep.equal(everyPageScored(index, terms, 25));
    }
  });
});
