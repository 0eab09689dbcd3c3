import { expect } from 'chai';
import { bestFirst, type Ranked } from '../../../../vault-store/knowledge/search/best-first.js';

describe('bestFirst', () => {
  // Scores from a small set, so ties (broken by key) are common; bounds at or above each score.
  const sample = (n: number): Ranked<number>[] =>
    Array.from({ length: n }, (_, i) => ({ item: i, key: `k${(i * 7919) % 1000}`, score: (i * 31) % 13 }));
  const sorted = (rs: Ranked<number>[]) => [...rs].sort((a, b) => b.score - a.score || (a.key < b.key ? -1 : 1)).map((r) => r.item);
  const bounds = (rs: Ranked<number>[], slack: (i: number) => number) => Float64Array.from(rs, (r, i) => r.score + slack(i));

  it('yields the order of a full sort, whether the caller stops early or reads past the first few', () => {
    const ranked = sample(500);
    const expected = sorted(ranked);
    for (const slack of [() => 0, (i: number) => (i % 7) / 2, () => Infinity]) {
      expect([...bestFirst(bounds(ranked, slack), (i) => ranked[i])].map((r) => r.item)).to.deep.equal(expected);
      const firstTen: number[] = [];
      for (const r of bestFirst(bounds(ranked, slack), (i) => ranked[i])) {
        if (firstTen.length === 10) break;
        firstTen.push(r.item);
      }
      expect(firstTen).to.deep.equal(expected.slice(0, 10));
    }
  });

  it('scores only what the bounds cannot rule out, and drops what the scorer rejects', () => {
    const ranked = sample(500);
    let scored = 0;
    const taken: number[] = [];
    for (const r of bestFirst(
      bounds(ranked, () => 0),
      (i) => (scored++, ranked[i]),
    )) {
      if (taken.length === 3) break;
      taken.push(r.item);
    }
    expect(taken).to.deep.equal(sorted(ranked).slice(0, 3));
    expect(scored).to.be.lessThan(100);
    expect(
      [
        ...bestFirst(
          bounds(ranked, () => 1),
          (i) => (i % 2 ? undefined : ranked[i]),
        ),
      ].map((r) => r.item),
    ).to.deep.equal(sorted(ranked.filter((_, i) => i % 2 === 0)));
    expect([...bestFirst(new Float64Array(0), () => undefined)]).to.deep.equal([]);
  });

  it('queues the highest bounds first, and the rest once a caller reads past what they decide', () => {
    const ranked = sample(5000);
    const expected = sorted(ranked);
    for (const slack of [() => 0, (i: number) => (i % 7) / 2, (i: number) => (i % 3 ? 0 : 20)]) {
      const taken: number[] = [];
      for (const r of bestFirst(bounds(ranked, slack), (i) => ranked[i])) {
        if (taken.length === 5) break;
        taken.push(r.item);
      }
      expect(taken).to.deep.equal(expected.slice(0, 5));
      expect([...bestFirst(bounds(ranked, slack), (i) => ranked[i])].map((r) => r.item)).to.deep.equal(expected);
      const kept = [...bestFirst(bounds(ranked, slack), (i) => (i % 5 ? undefined : ranked[i]))].map((r) => r.item);
      expect(kept).to.deep.equal(sorted(ranked.filter((_, i) => i % 5 === 0)));
    }
  });

  it('keeps each order when several run at once, interleaved or abandoned (their queues share an array only one at a time)', () => {
    const first = sample(5000);
    const second = sample(3000).map((r) => ({ ...r, score: 12 - r.score }));
    const a = bestFirst(
      bounds(first, () => 0),
      (i) => first[i],
    );
    const b = bestFirst(
      bounds(second, (i) => (i % 3 ? 0 : 20)),
      (i) => second[i],
    );
    const [fromA, fromB]: number[][] = [[], []];
    for (let step = 0; step < 12_000; step++) {
      const next = (step % 2 ? b : a).next();
      if (!next.done) (step % 2 ? fromB : fromA).push(next.value.item);
      // A third, started and dropped midway, must leave both alone.
      if (step === 100)
        for (const r of bestFirst(
          bounds(first, () => 1),
          (i) => first[i],
        ))
          if (r.item >= 0) break;
    }
    expect(fromA).to.deep.equal(sorted(first));
    expect(fromB).to.deep.equal(sorted(second));
  });

  it('gives up when the scorer returns null, having yielded only pages in order', () => {
    const ranked = sample(2000);
    let left = 300;
    const walk = bestFirst(
      bounds(ranked, (i) => (i % 5) / 2),
      (i) => (--left < 0 ? null : ranked[i]),
    );
    const taken: number[] = [];
    let step = walk.next();
    for (; !step.done; step = walk.next()) taken.push(step.value.item);
    expect(step.value).to.equal(false);
    expect(taken.length).to.be.within(1, 299);
    expect(taken).to.deep.equal(sorted(ranked).slice(0, taken.length));
  });
});
