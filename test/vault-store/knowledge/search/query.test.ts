import { expect } from 'chai';
import { containsPhrase, phraseTest } from '../../../../vault-store/knowledge/search/query.js';
import { isAscii, MAX_TERM_LENGTH, tokenize } from '../../../../vault-store/knowledge/search/tokenize.js';

describe('containsPhrase', () => {
  it('finds terms side by side as the tokenizer splits them, repeats and accents included', () => {
    expect(containsPhrase('A, a a-b.', ['a', 'a', 'b'])).to.equal(true);
    expect(containsPhrase('x a a a b', ['a', 'a', 'b'])).to.equal(true);
    expect(containsPhrase('a b a', ['a', 'a'])).to.equal(false);
    expect(containsPhrase('ab a b', ['a', 'b'])).to.equal(true);
    expect(containsPhrase('abc d', ['ab', 'd'])).to.equal(false);
    expect(containsPhrase('Un Café au lait', ['cafe', 'au'])).to.equal(true);
    expect(containsPhrase('知识管理', ['识管', '管理'])).to.equal(true);
    expect(containsPhrase('', ['a'])).to.equal(false);
  });
});

describe('phraseTest', () => {
  const long = 'x'.repeat(MAX_TERM_LENGTH + 1);
  const edge = 'y'.repeat(MAX_TERM_LENGTH);

  it('answers as containsPhrase does: cases, separators, overlong runs the tokenizer skips, non-ASCII text', () => {
    const cases: [string, string][] = [
      ['A, a a-b.', 'a a b'],
      ['ALPHA\n\n  beta', 'alpha beta'],
      ['alphabeta', 'alpha beta'],
      ['xalpha beta', 'alpha beta'],
      ['alpha betax', 'alpha beta'],
      [`alpha ${long} beta`, 'alpha beta'],
      [`alpha ${long}, ${long}. beta`, 'alpha beta'],
      [`alpha ${edge} beta`, 'alpha beta'],
      [`alpha ${long}beta`, 'alpha beta'],
      ['alpha 42 beta', 'alpha beta'],
      ['alpha_beta', 'alpha beta'],
      ['Un Café au lait', 'cafe au'],
      ['Un Cafe au lait', 'café au'],
      ['the 知识管理 of', '识管 管理'],
      ['ascii only', '识管 ascii'],
      ['ſtar wars', 'star wars'],
      ['a b c d', 'b c d'],
      ['a b c d', 'b d'],
    ];
    for (const [text, phrase] of cases) {
      const terms = tokenize(phrase);
      expect(phraseTest(terms)(text), `${JSON.stringify(text)} ∋ "${phrase}"`).to.equal(containsPhrase(text, terms));
    }
  });

  it('agrees with containsPhrase on random texts of a small alphabet', () => {
    const words = ['a', 'b', 'ab', 'B', long, edge, '1', 'é'];
    const seps = [' ', ', ', '\n', '-', '', '__'];
    let seed = 42;
    const next = (n: number) => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) % n;
    let found = 0;
    for (let round = 0; round < 2000; round++) {
      let text = '';
      for (let i = next(12); i >= 0; i--) text += words[next(words.length)] + seps[next(seps.length)];
      const terms = Array.from({ length: 1 + next(3) }, () => ['a', 'b', 'ab', '1'][next(4)]);
      const expected = containsPhrase(text, terms);
      expect(phraseTest(terms)(text), `${JSON.stringify(text)} ∋ ${terms.join(' ')}`).to.equal(expected);
      if (expected) found += 1;
    }
    expect(found).to.be.greaterThan(100);
  });
});

describe('isAscii', () => {
  it('is false for any character past ASCII, lone surrogates and the last ones included', () => {
    for (const text of ['', 'plain text\n\t~\x7f', 'a'.repeat(10_000)]) expect(isAscii(text), JSON.stringify(text)).to.equal(true);
    for (const text of ['caf\u00e9', '\u0080', '\u00a0', '\ud800', 'x\udfff', '\uffff', '😀', `${'a'.repeat(10_000)}é`])
      expect(isAscii(text), JSON.stringify(text)).to.equal(false);
  });
});
