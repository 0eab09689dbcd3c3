import { expect } from 'chai';
import { SearchIndex, type IndexedPage } from '../../../../vault-store/knowledge/search/search-index.js';
import { expectExact } from './every-page-scored.js';

/**
 * Two words in nearly every page, side by side in a few: once earlier phrase checks have
 * made the pages' filters, a phrase of them is ruled out of most pages before they are
 * ranked (see metPool), and must rank what remains exactly as scoring every page would.
 */
function pages(count: number, seed: number): IndexedPage[] {
  const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  const words = (n: number) => Array.from({ length: n }, () => `w${Math.floor(next() * 300)}`).join(' ');
  return Array.from({ length: count }, (_, i) => ({
    path: `${i % 3 ? 'notes' : 'log'}/p${i}.md`,
    title: words(2),
    hash: `h${seed}-${i}`,
    tags: [],
    body:
      i % 97 === 0
        ? `${words(5)} alpha beta ${words(30)}`
        : `${'alpha '.repeat(1 + (i % 4))}${words(10 + (i % 40))} ${'beta '.repeat(1 + (i % 3))}`,
  }));
}

describe('phrase pages ruled out before ranking', () => {
  it('ranks exactly as scoring every page would, before and after the filters are made, through edits', () => {
    const index = new SearchIndex();
    for (const page of pages(2500, 7)) index.upsert(page);
    const queries = ['"alpha beta"', '"beta alpha"', '"alpha beta w3"'];
    const visible = (path: string) => path.startsWith('log/');
    const all = () => {
      for (const query of queries) expectExact(index, query, [1, 3, 10, 5000]);
      for (const query of queries) expectExact(index, query, 5, visible);
    };
    all();
    // Made filters now rule most pages out; then pages change, and their filters are made again.
    all();
    index.upsert({ path: 'notes/p1.md', title: 'New', hash: 'x1', tags: [], body: 'now alpha beta here' });
    index.upsert({ path: 'log/p0.md', title: 'Old', hash: 'x2', tags: [], body: 'beta and alpha apart' });
    for (let i = 5; i < 2500; i += 11) index.remove(`${i % 3 ? 'notes' : 'log'}/p${i}.md`);
    all();
    all();
    expect(index.search('"alpha beta"', { limit: 5000 }).results.map((r) => r.path))
      .to.include('notes/p1.md')
      .and.not.include('log/p0.md');
  });
});
