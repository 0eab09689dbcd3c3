import { expect } from 'chai';
import { bestFirst, type Ranked } from '../../../../vault-store/knowledge/search/best-first.js';

describe('bestFirst', () => {
  // Scores from a small set, so ties (broken by key) are common.
  const sample = (n: number): Ranked<number>[] => Array.from({ length: n }, (_, i) => ({ item: i, key: `k${(i * 7919) % 1000}`, score: (i * 31) % 13 }));
  const sorted = (rs: Ranked<number>[]) => [...rs].sort((a, b) => b.score - a.score || (a.key < b.key ? -1 : 1)).map((r) => r.item);

  it('yields the order of a full sort, whether the caller stops early or reads past the first few', () => {
    const ranked = sample(500);
    const expected = sorted(ranked);
    expect([...bestFirst(sample(500), 20)].map((r) => r.item)).to.deep.equal(expected);
    const firstTen: number[] = [];
    for (const r of bestFirst(sample(500), 20)) {
      if (firstTen.length === 10) break;
      firstTen.push(r.item);
    }
    expect(firstTen).to.deep.equal(expected.slice(0, 10));
  });

  it('handles fewer candidates than it orders up front, none, and a zero limit', () => {
    expect([...bestFirst(sample(5), 20)].map((r) => r.item)).to.deep.equal(sorted(sample(5)));
    expect([...bestFirst([], 20)]).to.deep.equal([]);
    expect([...bestFirst(sample(3), 0)].map((r) => r.item)).to.deep.equal(sorted(sample(3)));
  });
});
