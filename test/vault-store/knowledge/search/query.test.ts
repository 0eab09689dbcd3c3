import { expect } from 'chai';
import { containsPhrase } from '../../../../vault-store/knowledge/search/query.js';

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
