import { expect } from 'chai';
import { SearchIndex, type IndexedPage } from '../../../../vault-store/knowledge/search/search-index.js';
import { expectExact } from './every-page-scored.js';

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

describe('search ranking with completions', () => {
  const index = new SearchIndex();
  for (const page of pages(1500, 3)) index.upsert(page);
  pages(100, 4).forEach((page, i) => index.upsert({ ...page, path: `notes/p${i * 7}.md` }));
  for (let i = 2; i < 1500; i += 11) index.remove(`log/p${i}.md`);
  const queries = [
    'odd3 kap',
    'odd17 kap1',
    'kap2 kap3',
    'odd40 odd5 kap3',
    'kap0 kap',
    'odd9 kap',
    'kap39 kap1',
    'odd1 odd',
    'kap',
    'kap1',
    'odd',
  ];

  it('ranks a query ending in half a word exactly as scoring every page would', () => {
    for (const query of queries) expectExact(index, query, [1, 10, 40]);
  });

  it('stays exact when a filter after ranking rejects most of the best pages', () => {
    const visible = (path: string) => path.startsWith('log/') || path.endsWith('3.md');
    for (const query of queries) expectExact(index, query, 10, visible);
  });
});

describe('completions of half a word', () => {
  const index = new SearchIndex();
  const texts = ['capa capc', 'capa capc capd', 'capa capc capd cap', 'capb cap cat', 'cat'];
  texts.forEach((body, i) => index.upsert({ path: `notes/p${i}.md`, title: 'x', hash: `h${i}`, tags: [], body }));
  index.upsert({ path: 'secret/s.md', title: 'x', hash: 'hs', tags: [], body: 'cape' });

  it('are the most frequent first, equal counts in word order, never the word itself, at most max', () => {
    const known = (t: string) => index.knows(t);
    expect(index.stats.expand('cap', 8, known)).to.deep.equal(['capa', 'capc', 'capd', 'capb', 'cape']);
    expect(index.stats.expand('cap', 3, known)).to.deep.equal(['capa', 'capc', 'capd']);
    expect(index.stats.expand('capz', 8, known)).to.deep.equal([]);
  });

  it('are only words the reader can see', () => {
    const visible = (path: string) => !path.startsWith('secret/');
    expect(index.stats.expand('cap', 8, (t) => index.knows(t, visible))).to.deep.equal(['capa', 'capc', 'capd', 'capb']);
  });
});
