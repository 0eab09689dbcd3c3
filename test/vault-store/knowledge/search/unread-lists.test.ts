import { expect } from 'chai';
import { Bm25 } from '../../../../vault-store/knowledge/search/bm25.js';
import { SearchIndex, type IndexedPage } from '../../../../vault-store/knowledge/search/search-index.js';
import { TableScorer } from '../../../../vault-store/knowledge/search/table-scorer.js';
import { expectExact } from './every-page-scored.js';

/**
 * A word in every page's body ("the0", up to a dozen times) and its completions in a few
 * titles, as typing makes of a common word in a large vault: the word's lists are far
 * longer than the rest, so they are left unread, and the pages the completions meet are
 * scored from their own tables — all of them when few are near the top, else until that
 * costs more than reading the lists, which then fill in the pages met.
 */
function pages(count: number, seed: number, titled: number, held: number): IndexedPage[] {
  const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  const words = (n: number) => Array.from({ length: n }, () => `w${Math.floor(next() ** 2 * 80)}`).join(' ');
  return Array.from({ length: count }, (_, i) => ({
    path: `${i % 4 ? 'notes' : 'log'}/p${i}.md`,
    title: i % titled === 0 ? `the0x${i % 7} ${words(1)}` : words(2),
    hash: `h${seed}-${i}`,
    tags: [],
    body: `${'the0 '.repeat(1 + (i % 12))}${words(20 + (i % 90))}${i % held ? '' : ' the0x9'}`,
  }));
}

describe('search with lists left unread', () => {
  const queries = ['the0', 'the0x', 'w7 the0', '"the0 w3"', 'the0x9 the0', 'w79 the0'];
  // Completions in few titles and fewer bodies: few pages near the top, each scored from its table.
  const few = new SearchIndex();
  for (const page of pages(4000, 11, 397, 1999)) few.upsert(page);
  // Completions in many bodies too: many pages near the top, and the lists fill them in after all.
  const many = new SearchIndex();
  for (const page of pages(4000, 11, 97, 5)) many.upsert(page);
  for (let i = 3; i < 4000; i += 29) for (const index of [few, many]) index.remove(`notes/p${i}.md`);

  it('ranks exactly as scoring every page would, however many results are asked for', () => {
    for (const index of [few, many]) for (const query of queries) expectExact(index, query, [1, 3, 10, 40, 5000]);
  });

  it('stays exact when a filter after ranking rejects most of the best pages', () => {
    const visible = (path: string) => path.startsWith('log/') || path.endsWith('1.md');
    for (const index of [few, many]) for (const query of queries) expectExact(index, query, 20, visible);
  });
});

describe('TableScorer', () => {
  const index = new SearchIndex();
  for (const page of pages(300, 3, 7, 5)) index.upsert(page);
  const bm25 = new Bm25(index.stats);
  const alt = (term: string, weight: number) => {
    const id = index.stats.id(term)!;
    return { id, term, weight, idf: index.stats.idf(id), depth: 10 };
  };

  it('gives each page the bits of what it holds and the score of each alternative looked up alone', () => {
    // Out of id order, a term asked in two slots, and terms most pages lack.
    const slots = [
      { alternatives: [alt('w79', 1), alt('the0', 0.5), alt('the0x3', 0.5)] },
      { alternatives: [alt('the0', 1)] },
      { alternatives: [alt('w0', 1), alt('the0x9', 0.7)] },
    ];
    const scorer = new TableScorer(slots, bm25);
    for (const doc of index.docs) {
      if (!doc) continue;
      let total = 0;
      let matched = 0;
      let held = 0;
      let bit = 0;
      for (const slot of slots) {
        let best = 0;
        for (const a of slot.alternatives) {
          const score = a.weight * bm25.score(doc.terms, a.id, a.idf);
          if (score > 0) held |= 1 << bit;
          bit += 1;
          best = Math.max(best, score);
        }
        if (best > 0) matched += 1;
        total += best;
      }
      expect(scorer.score(doc), doc.path).to.equal((total * matched) / slots.length);
      expect(scorer.held, doc.path).to.equal(held);
    }
  });
});
