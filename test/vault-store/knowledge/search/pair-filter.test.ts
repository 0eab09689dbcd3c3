import { expect } from 'chai';
import { PairFilters, phrasePairs } from '../../../../vault-store/knowledge/search/pair-filter.js';
import { containsPhrase } from '../../../../vault-store/knowledge/search/query.js';
import { SearchIndex } from '../../../../vault-store/knowledge/search/search-index.js';
import { tokenize } from '../../../../vault-store/knowledge/search/tokenize.js';
import { scaled } from '../../../helpers/soak.js';

describe('PairFilters', () => {
  let seed = 11;
  const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  const words = ['alpha', 'Beta', 'gamma', 'Café', 'naïve', '知识管理', 'e-mail', 'x'.repeat(45), 'ZETA', 'eta'];
  const text = (n: number) => Array.from({ length: n }, () => words[Math.floor(next() * words.length)]).join(next() < 0.5 ? ' ' : ', ');

  it('never says no to a phrase the title or body holds, in ASCII, accented and CJK text', () => {
    const filters = new PairFilters();
    for (let id = 0; id < 200; id++) {
      const [title, body] = [text(3), text(5 + (id % 40))];
      for (let q = 0; q < 30; q++) {
        const terms = tokenize(text(2 + (q % 3)));
        if (terms.length < 2) continue;
        const holds = containsPhrase(title, terms) || containsPhrase(body, terms);
        const may = filters.mayHold(id, () => [title, body], phrasePairs(terms));
        if (holds) expect(may, `${terms.join(' ')} in ${title} / ${body}`).to.equal(true);
      }
    }
  });

  it('rules out nearly every phrase a page lacks', () => {
    const filters = new PairFilters();
    const vocabulary = Array.from({ length: 3000 }, (_, i) => `w${i}`);
    const pick = () => vocabulary[Math.floor(next() ** 2 * vocabulary.length)];
    let lacking = 0;
    let passed = 0;
    for (let id = 0, pages = scaled(100, 300); id < pages; id++) {
      const body = Array.from({ length: 300 }, pick).join(' ');
      for (let q = 0; q < 100; q++) {
        const terms = [pick(), pick()];
        if (containsPhrase(body, terms)) continue;
        lacking += 1;
        if (filters.mayHold(id, () => ['', body], phrasePairs(terms))) passed += 1;
      }
    }
    expect(passed / lacking).to.be.below(0.03);
  });

  it('makes a page a new filter once the one it had is forgotten', () => {
    const filters = new PairFilters();
    const pairs = phrasePairs(['red', 'fox']);
    expect(filters.mayHold(0, () => ['', 'a red fox'], pairs)).to.equal(true);
    // Not forgotten: the filter stands, the text is not read again.
    expect(filters.mayHold(0, () => expect.fail('read again'), pairs)).to.equal(true);
    filters.forget(0);
    expect(filters.mayHold(0, () => ['', 'a fox, red'], pairs)).to.equal(false);
  });

  it('tells of a page without its text only once its filter is made', () => {
    const filters = new PairFilters();
    const [held, lacking] = [phrasePairs(['red', 'fox']), phrasePairs(['blue', 'fox'])];
    expect(filters.has(0)).to.equal(false);
    expect(filters.mayHold(0, () => ['', 'a red fox'], held)).to.equal(true);
    expect(filters.has(0)).to.equal(true);
    expect(filters.passes(0, lacking)).to.equal(false);
    expect(filters.passes(0, held)).to.equal(true);
    filters.forget(0);
    expect(filters.has(0)).to.equal(false);
  });

  it('forgets the filter of a page that goes when its id goes to another page, even one with the same blob', () => {
    const index = new SearchIndex();
    index.upsert({ path: 'a.md', title: 'Notes', hash: 'same', tags: [], body: 'plain text' });
    expect(index.search('"plain text"').results.map((r) => r.path)).to.deep.equal(['a.md']);
    // The filter of a.md is made; b.md reuses its id and blob, under a title a.md never had.
    index.remove('a.md');
    index.upsert({ path: 'b.md', title: 'Red fox', hash: 'same', tags: [], body: 'plain text' });
    expect(index.search('"red fox"').results.map((r) => r.path)).to.deep.equal(['b.md']);
  });

  it('files a page at a free id without a filter, even one made for the id while it was free', () => {
    const index = new SearchIndex();
    index.upsert({ path: 'a.md', title: 'A', hash: 'ha', tags: [], body: 'plain text' });
    index.upsert({ path: 'b.md', title: 'B', hash: 'hb', tags: [], body: 'other words' });
    const id = index.get('a.md')!.id;
    index.remove('a.md');
    // A phrase check that met the free id (its page gone, so no text) makes an empty filter.
    expect(index.pairs.mayHold(id, () => [], phrasePairs(['red', 'fox']))).to.equal(false);
    index.upsert({ path: 'c.md', title: 'C', hash: 'hc', tags: [], body: 'a red fox' });
    expect(index.get('c.md')!.id).to.equal(id);
    expect(index.search('"red fox"').results.map((r) => r.path)).to.deep.equal(['c.md']);
  });

  it('lets a phrase search find the pages that hold it and only those, through edits', () => {
    const index = new SearchIndex();
    const body = (i: number) => (i % 5 === 0 ? `some text with red fox inside ${i}` : `a fox and a red car ${i}`);
    for (let i = 0; i < 100; i++) index.upsert({ path: `p${i}.md`, title: `Page ${i}`, hash: `h${i}`, tags: [], body: body(i) });
    const found = () =>
      index
        .search('"red fox"', { limit: 1000 })
        .results.map((r) => r.path)
        .sort();
    expect(found()).to.have.length(20);
    index.upsert({ path: 'p1.md', title: 'Page 1', hash: 'h1b', tags: [], body: 'the red fox now' });
    index.upsert({ path: 'p5.md', title: 'Red fox', hash: 'h5b', tags: [], body: 'no longer here' });
    index.upsert({ path: 'p10.md', title: 'Page 10', hash: 'h10b', tags: [], body: 'gone fox red' });
    expect(found()).to.include.members(['p1.md', 'p5.md']).and.not.include('p10.md');
    expect(found()).to.have.length(20);
  });
});
