import { expect } from 'chai';
import { Document } from 'flexsearch';
import { FlexIndex } from '../../../../vault-store/knowledge/search/flex-index.js';
import { FIELDS, TermStats, type FieldTexts, type FieldTokens } from '../../../../vault-store/knowledge/search/term-stats.js';
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
    const texts = ['Hello, World! 42 foo_bar e-mail', `x${'a'.repeat(40)} ${'b'.repeat(40)} end`, 'Café naïve Ｆｕｌｌ', '知识管理 and 日本語テキスト mixed', '', '  ..  '];
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

  it('FlexIndex files postings as FlexSearch add does: same candidates in the same order', () => {
    const stats = new TermStats();
    const distinct = pages(300).map((page) => stats.add(page).distinct);
    const ours = FlexIndex.create();
    const reference = new Document<{ id: number } & FieldTokens>({
      document: { id: 'id', index: FIELDS.map((field) => ({ field, custom: ((d: FieldTokens) => d[field]) as unknown as () => string })) },
      tokenize: 'strict',
      encode: (input: string | string[]) => (Array.isArray(input) ? input : input.split(' ')),
      fastupdate: true,
      resolution: 9,
    });
    distinct.forEach((fields, id) => {
      ours.add(id, fields);
      reference.add({ id, ...fields });
    });
    for (const id of [3, 50, 51, 299]) {
      ours.remove(id);
      reference.remove(id);
    }
    ours.add(50, distinct[51]);
    reference.add({ id: 50, ...distinct[51] });
    const sample = stats.sorted.slice(0, 40);
    expect(sample.length).to.be.greaterThan(20);
    for (const term of sample) {
      for (const limit of [1, 5, 100, 1000]) {
        const expected = new Set<number>();
        for (const group of reference.search(term, { limit })) for (const id of group.result) expected.add(id as number);
        expect(ours.candidates([term], limit), term).to.deep.equal([...expected]);
      }
    }
  });
});
