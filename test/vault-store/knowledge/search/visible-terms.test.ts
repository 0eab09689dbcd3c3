import { expect } from 'chai';
import { similar } from '../../../../vault-store/knowledge/similar.js';
import { SearchIndex } from '../../../../vault-store/knowledge/search/search-index.js';

/** Hidden pages' words must shape nothing a limited caller gets: not suggestions, completions or scores. */
describe('search terms for a caller who reads only some pages', () => {
  const visible = (path: string) => path.startsWith('open/');
  let index: SearchIndex;

  beforeEach(() => {
    index = new SearchIndex();
    const page = (path: string, body: string) => index.upsert({ path, title: path, hash: path, tags: [], body });
    page('open/trip.md', 'Notes from the zanzibar trip, and a zebroid.');
    page('open/plain.md', 'Plain words only.');
    // More frequent completions of "zebr" than the open page's, all hidden: they must not crowd it out.
    for (let i = 0; i < 10; i++) page(`hidden/${i}.md`, `zanzibarite ${'zebra'.padEnd(6 + i, 'x')} ${'zebra'.padEnd(6 + i, 'x')}`);
  });

  it('knows a term only when a readable page holds it', () => {
    expect(index.knows('zanzibarite')).to.equal(true);
    expect(index.knows('zanzibarite', visible)).to.equal(false);
    expect(index.knows('zanzibar', visible)).to.equal(true);
    expect(index.knows('nothing', visible)).to.equal(false);
  });

  it('suggests and completes from readable pages only', () => {
    expect(index.search('zanzibarit ').suggestion).to.equal('zanzibarite ');
    expect(index.search('zanzibarit ', { visible }).suggestion).to.equal('zanzibar ');
    expect(index.search('zebr*', { visible }).results.map((r) => r.path)).to.deep.equal(['open/trip.md']);
    // A hidden-only word is unknown, so typo fixes run for it as for any unknown word.
    expect(index.search('zanzibarite ', { visible })).to.deep.equal(index.search('qqqqqqqqqqq ', { visible }));
  });

  it('scores text the same whether or not hidden pages hold its other words', () => {
    const score = (text: string) => similar(index, { text }, 10, visible).map((h) => [h.path, h.score]);
    expect(score('zanzibar trip zanzibarite')).to.deep.equal(score('zanzibar trip qqqqqqqq'));
    expect(similar(index, { text: 'zanzibar trip zanzibarite' })[0].score).not.to.equal(
      similar(index, { text: 'zanzibar trip qqqqqqqq' })[0].score,
    );
  });
});
