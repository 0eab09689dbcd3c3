import { SearchIndex, type IndexedPage } from '../../../../vault-store/knowledge/search/search-index.js';
import { expectExact } from './every-page-scored.js';

/**
 * A vault whose commonest word ("the0") is in nearly every page, often nine times or more,
 * beside rarer words sharing its prefix ("the0x…") that sit in a few titles: the shape in
 * which a query reads the common word's long lists late, then fills in only the pages
 * the other lists met.
 */
function pages(count: number, seed: number): IndexedPage[] {
  const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  const word = () => (next() < 0.35 ? 'the0' : next() < 0.05 ? `the0x${Math.floor(next() * 30)}` : `w${Math.floor(next() ** 2 * 60)}`);
  const text = (n: number) => Array.from({ length: n }, word).join(' ');
  return Array.from({ length: count }, (_, i) => ({
    path: `${i % 3 ? 'notes' : 'log'}/p${i}.md`,
    title: i % 40 === 0 ? `the0x${i % 30} ${text(1)}` : text(2),
    hash: `h${seed}-${i}`,
    tags: [],
    body: text(10 + (i % 120)),
  }));
}

describe('search with lists read late', () => {
  const index = new SearchIndex();
  for (const page of pages(3000, 5)) index.upsert(page);
  pages(200, 6).forEach((page, i) => index.upsert({ ...page, path: `notes/p${i * 7 + 1}.md` }));
  for (let i = 2; i < 3000; i += 17) index.remove(`log/p${i}.md`);
  // Typed words with completions, a common word beside a rarer one, phrases of common and rare words, and
  // queries with fewer matches than asked for (the walk gives up on the late lists and reads them in full).
  const queries = ['the0', 'the0x', 'the0 w3', 'w1 the0', 'w59 the0 ', '"the0 w7"', '"w2 the0"', '"the0x3 the0"', 'the0x29 ', 'w58 w59 '];

  it('ranks exactly as scoring every page would, however many results are asked for', () => {
    for (const query of queries) expectExact(index, query, [1, 10, 60, 5000]);
  });

  it('stays exact when a filter after ranking rejects most of the best pages', () => {
    const visible = (path: string) => path.startsWith('log/') || path.endsWith('7.md');
    for (const query of queries) expectExact(index, query, 20, visible);
  });
});
