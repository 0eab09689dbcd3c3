import { expect } from 'chai';
import { countOfSlot, FlexIndex } from '../../../../vault-store/knowledge/search/flex-index.js';
import { FIELDS, TermStats, type FieldTexts } from '../../../../vault-store/knowledge/search/term-stats.js';
import { scanTerms, tokenize } from '../../../../vault-store/knowledge/search/tokenize.js';
import { Vocabulary } from '../../../../vault-store/knowledge/search/vocabulary.js';

/** Deterministic pseudo-random pages over a small vocabulary, so terms repeat across pages. */
function pages(count: number): FieldTexts[] {
  let seed = 7;
  const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  const words = Array.from({ length: 60 }, (_, i) => `w${i.toString(36)}x${'ab'.repeat(i % 5)}`);
  const text = (n: number) => Array.from({ length: n }, () => words[Math.floor(next() ** 2 * words.length)]).join(' ');
  return Array.from({ length: count }, (_, i) => ({ title: text(3), body: text(20 + (i % 40)), tags: text(2), path: `folder/${text(2)}` }));
}

describe('search build path', () => {
  it('scanTerms yields exactly what tokenize returns, ASCII or not', () => {
    const texts = [
      'Hello, World! 42 foo_bar e-mail',
      `x${'a'.repeat(40)} ${'b'.repeat(40)} end`,
      'Café naïve Ｆｕｌｌ',
      '知识管理 and 日本語テキスト mixed',
      '',
      '  ..  ',
    ];
    for (const text of texts) {
      const scanned: string[] = [];
      scanTerms(text, (source, start, end) => scanned.push(source.slice(start, end)));
      expect(scanned, text).to.deep.equal(tokenize(text));
    }
  });

  it('the vocabulary finds every term it interned, by string or by slice, across growth', () => {
    const vocabulary = new Vocabulary();
    const terms = Array.from({ length: 5000 }, (_, i) => `t${i}`);
    terms.forEach((term, i) => expect(vocabulary.intern(`  ${term}  `, 2, 2 + term.length)).to.equal(i));
    terms.forEach((term, i) => expect(vocabulary.id(term)).to.equal(i));
    expect(vocabulary.intern('t42', 0, 3)).to.equal(42);
    expect(vocabulary.id('t5000')).to.equal(undefined);
    expect(vocabulary.size).to.equal(5000);
  });

  it('FlexIndex files each page in the slot of its count across adds, updates and removes, and FlexSearch searches what it filed', () => {
    const stats = new TermStats();
    const texts = pages(300);
    const distinct = texts.map((page) => stats.add(page).distinct);
    const index = FlexIndex.create();
    distinct.forEach((fields, id) => index.add(id, fields));
    for (const id of [3, 50, 51, 299]) index.remove(id);
    index.add(50, distinct[51]);
    index.add(3, distinct[10]);
    // Updates move only the postings that changed; the result must be as if filed afresh.
    for (const [id, other] of [
      [100, 101],
      [101, 7],
      [7, 100],
      [200, 200],
    ])
      index.update(id, distinct[id], distinct[other]);
    const live = new Map(texts.map((page, id) => [id, page]));
    for (const id of [51, 299]) live.delete(id);
    live.set(50, texts[51]);
    live.set(3, texts[10]);
    for (const [id, other] of [
      [100, 101],
      [101, 7],
      [7, 100],
    ])
      live.set(id, texts[other]);

    const count = (text: string, term: string) => tokenize(text).filter((t) => t === term).length;
    const sample = stats.sorted.slice(0, 40);
    let pastLastSlot = 0;
    for (const term of sample) {
      for (const field of FIELDS) {
        const filed = new Map<number, number>();
        index.postings(term, field)!.forEach((ids, slot) => ids?.forEach((id) => filed.set(id, slot)));
        const holders = [...live].filter(([, page]) => count(page[field], term) > 0);
        expect(
          [...filed.keys()].sort((a, b) => a - b),
          `${term} in ${field}`,
        ).to.deep.equal(holders.map(([id]) => id));
        for (const [id, page] of holders) {
          const n = count(page[field], term);
          const slotCount = countOfSlot(filed.get(id)!);
          if (slotCount === Infinity) pastLastSlot += 1;
          expect(slotCount === Infinity ? n >= 9 : n === slotCount, `${term} ×${n} in ${field} of ${id}`).to.equal(true);
        }
      }
      // FlexSearch's own search over what we filed: single terms and a pair.
      const anyField = (id: number, terms: string[]) => FIELDS.some((f) => terms.every((t) => count(live.get(id)![f], t) > 0));
      expect(index.candidates([term], 1e9).sort((a, b) => a - b)).to.deep.equal(
        [...live.keys()].filter((id) => anyField(id, [term])).sort((a, b) => a - b),
      );
      const pair = [term, sample[0]];
      if (term !== sample[0])
        expect(index.candidates(pair, 1e9).sort((a, b) => a - b)).to.deep.equal(
          [...live.keys()].filter((id) => anyField(id, pair)).sort((a, b) => a - b),
        );
    }
    expect(pastLastSlot, 'the sample has counts past the last exact slot').to.be.greaterThan(0);
  });
});
