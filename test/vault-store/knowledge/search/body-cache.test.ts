import { expect } from 'chai';
import { BodyCache } from '../../../../vault-store/knowledge/search/body-cache.js';
import { SearchIndex } from '../../../../vault-store/knowledge/search/search-index.js';

describe('the cache of decoded page bodies', () => {
  it('keeps no more characters than its cap after any insert', () => {
    const cache = new BodyCache(100);
    for (let i = 0; i < 50; i++) {
      cache.add(1, `blob${i}`, 'x'.repeat(1 + ((i * 7) % 40)));
      expect(cache.size).to.be.at.most(100);
    }
    expect(cache.get(1, 'blob49')).to.equal('x'.repeat(1 + ((49 * 7) % 40)));
    expect(cache.get(1, 'blob0')).to.equal(undefined);
  });

  it('lets the bodies read since they were added outlast the others', () => {
    const cache = new BodyCache(30);
    for (const blob of ['a', 'b', 'c']) cache.add(1, blob, blob.repeat(10));
    expect(cache.get(1, 'a')).to.equal('a'.repeat(10));
    cache.add(1, 'd', 'd'.repeat(10));
    expect([...'abcd'].map((blob) => cache.get(1, blob) !== undefined)).to.deep.equal([true, false, true, true]);
    expect(cache.size).to.equal(30);
  });

  it('answers only the index that read a body, and counts a body read again by another once', () => {
    const cache = new BodyCache(100);
    cache.add(1, 'same', 'one reading');
    expect(cache.get(2, 'same')).to.equal(undefined);
    cache.add(2, 'same', 'another reading');
    expect(cache.get(2, 'same')).to.equal('another reading');
    expect(cache.get(1, 'same')).to.equal(undefined);
    expect(cache.size).to.equal('another reading'.length);
  });

  it('keeps neither empty bodies nor bodies longer than the whole cache', () => {
    const cache = new BodyCache(10);
    expect(cache.add(1, 'empty', '')).to.equal('');
    expect(cache.add(1, 'long', 'y'.repeat(11))).to.equal('y'.repeat(11));
    expect(cache.get(1, 'empty')).to.equal(undefined);
    expect(cache.get(1, 'long')).to.equal(undefined);
    expect(cache.size).to.equal(0);
  });

  it('shows an edited page from its new body, and each index its own', () => {
    const page = (body: string, hash: string) => ({ path: 'p.md', title: 'P', hash, tags: [], body });
    const index = new SearchIndex();
    index.upsert(page('the first zebra', '1'.repeat(40)));
    expect(index.search('zebra').results[0].snippet).to.equal('the first **zebra**');
    index.upsert(page('the second zebra', '2'.repeat(40)));
    expect(index.search('zebra').results[0].snippet).to.equal('the second **zebra**');
    // Another index naming other bytes by the same id (only tests do) still reads its own.
    const other = new SearchIndex();
    other.upsert(page('a third zebra', '2'.repeat(40)));
    expect(other.search('zebra').results[0].snippet).to.equal('a third **zebra**');
    expect(index.search('zebra').results[0].snippet).to.equal('the second **zebra**');
  });
});
