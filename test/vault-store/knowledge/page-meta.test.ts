import { expect } from 'chai';
import { pageMeta } from '../../../vault-store/knowledge/page-meta.js';

const meta = (text: string) => pageMeta('notes/a.md', 'h', Buffer.from(text));

describe('pageMeta', () => {
  it('counts words as runs of letters and digits, ASCII or not', () => {
    const texts = [
      'Hello, world! 42 e-mail foo_bar',
      'x\x10\x19y [z] `a`@b',
      'Café naïve 知识 ok',
      '',
      '---\ntitle: T\n---\none two three',
    ];
    const expected = [7, 5, 4, 0, 3];
    expect(texts.map((t) => meta(t).words)).to.deep.equal(expected);
  });

  it('finds headings outside fences with their file line, skipping other lines', () => {
    const text = '---\ntitle: T\n---\n# One\nplain # not\n  ```js\n# fenced\n```\n## Two ##\n#nospace\n~~~\n# in tilde\n~~~\n### Three';
    expect(meta(text).headings).to.deep.equal([
      { level: 1, text: 'One', line: 4 },
      { level: 2, text: 'Two', line: 9 },
      { level: 3, text: 'Three', line: 14 },
    ]);
  });
});
