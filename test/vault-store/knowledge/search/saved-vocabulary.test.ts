import { expect } from 'chai';
import { closeTerms, typoFilter } from '../../../../vault-store/knowledge/search/fuzzy.js';
import { SavedTerms } from '../../../../vault-store/knowledge/search/saved-terms.js';
import { Vocabulary } from '../../../../vault-store/knowledge/search/vocabulary.js';

/** Terms whose UTF-8 and UTF-16 orders differ (a supplementary character against U+E000 and up), accents, CJK, prefixes of each other. */
const TERMS = [
  'amber',
  'amb',
  'ambers',
  'café',
  'cafe',
  'cafè',
  'naïve',
  'naive',
  '知识',
  '知',
  'x😀y',
  'x\ue000y',
  'x\uffefy',
  'zeta',
  'z',
  'heron',
  'herons',
  'hero',
  'kestrel',
  'ｆｕｌｌ',
];

function built(terms: readonly string[]): Vocabulary {
  const vocabulary = new Vocabulary();
  for (const term of terms) vocabulary.intern(`  ${term}.`, 2, 2 + term.length);
  return vocabulary;
}

/** The vocabulary as a save writes it and a warm open reads it back. */
function reopened(vocabulary: Vocabulary): Vocabulary {
  const { order, text } = vocabulary.savedForm(vocabulary.size);
  return new Vocabulary(new SavedTerms(Buffer.concat(text), order));
}

describe('a restored vocabulary (its terms read in place)', () => {
  it('finds every term by the id it was saved with, and gives each back, in any script', () => {
    const restored = reopened(built(TERMS));
    expect(restored.size).to.equal(TERMS.length);
    TERMS.forEach((term, id) => {
      expect(restored.id(term), term).to.equal(id);
      expect(restored.term(id)).to.equal(term);
    });
    for (const absent of ['', 'am', 'amberz', 'cafë', 'x😁y', '知识管理', 'zz']) expect(restored.id(absent), absent).to.equal(undefined);
  });

  it('lists terms in JavaScript string order, from a prefix, as the sorted strings would', () => {
    const restored = reopened(built(TERMS));
    const sorted = [...TERMS].sort();
    expect([...restored.sorted()]).to.deep.equal(sorted);
    for (const from of ['', 'amb', 'c', 'x', 'x😀', 'zz', '知'])
      expect([...restored.sorted(from)], from).to.deep.equal(sorted.filter((t) => t >= from));
  });

  it('files new pages after a restore: old terms keep their ids, new ones come after, and a second save and restore keeps both', () => {
    const restored = reopened(built(TERMS));
    TERMS.forEach((term, id) => expect(restored.intern(`(${term})`, 1, 1 + term.length), term).to.equal(id));
    const added = ['amberly', 'café-au', 'x😀z', 'aa', 'zzz', '知道'];
    added.forEach((term, i) => expect(restored.intern(`${term} `, 0, term.length)).to.equal(TERMS.length + i));
    const all = [...TERMS, ...added];
    expect([...restored.sorted()]).to.deep.equal([...all].sort());
    const again = reopened(restored);
    all.forEach((term, id) => expect(again.id(term), term).to.equal(id));
    expect([...again.sorted('am')]).to.deep.equal([...all].sort().filter((t) => t >= 'am'));
    // A save taken before the last terms came holds only the terms it counted.
    const { order, text } = restored.savedForm(TERMS.length + 2);
    const earlier = new Vocabulary(new SavedTerms(Buffer.concat(text), order));
    expect(earlier.size).to.equal(TERMS.length + 2);
    expect(earlier.id('café-au')).to.equal(TERMS.length + 1);
    expect(earlier.id('x😀z')).to.equal(undefined);
  });

  it('suggests the same typo fixes as a scan of every term as a string, skipping terms by their bytes', () => {
    const terms = [...TERMS, ...Array.from({ length: 400 }, (_, i) => `w${i.toString(36)}${'xy'.repeat(i % 4)}`)];
    const restored = reopened(built(terms));
    const sorted = [...terms].sort();
    for (const typo of ['ambr', 'kestral', 'herno', 'cafe', 'naïv', 'w1xyy', 'zeat', 'x😀', '知x', 'q']) {
      const everyString = closeTerms(typo, sorted, () => true);
      expect(
        closeTerms(typo, restored.sorted('', typoFilter(typo)), () => true),
        typo,
      ).to.deep.equal(everyString);
    }
  });

  it('refuses terms and an order that do not add up', () => {
    const text = Buffer.from('b\0a\0c');
    expect(() => new SavedTerms(text, Uint32Array.of(1, 0, 2))).to.not.throw();
    expect(() => new SavedTerms(text, Uint32Array.of(1, 0))).to.throw('bad vocabulary');
    expect(() => new SavedTerms(text, Uint32Array.of(1, 0, 2, 3))).to.throw('bad vocabulary');
    expect(() => new SavedTerms(text, Uint32Array.of(1, 1, 2))).to.throw('bad vocabulary');
    expect(() => new SavedTerms(text, Uint32Array.of(1, 0, 3))).to.throw('bad vocabulary');
    expect(() => new SavedTerms(Buffer.from('a'), new Uint32Array(0))).to.throw('bad vocabulary');
  });
});
