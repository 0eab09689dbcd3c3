import { expect } from 'chai';
import { pageHeadings, pageLinks, pageMeta } from '../../../vault-store/knowledge/page-meta.js';

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
    expect(pageHeadings('notes/a.md', text)).to.deep.equal([
      { level: 1, text: 'One', line: 4 },
      { level: 2, text: 'Two', line: 9 },
      { level: 3, text: 'Three', line: 14 },
    ]);
  });

  it('keeps the words in headings and the line of the H1 the title comes from, for lint', () => {
    expect(meta('# Big title\n## Sub part two\nbody words here')).to.include({ headingWords: 5, words: 8, titleLine: 1 });
    const fromFrontmatter = meta('---\ntitle: Other\n---\n# Big title\n');
    expect(fromFrontmatter).to.include({ headingWords: 2 });
    expect(fromFrontmatter).not.to.have.property('titleLine');
  });

  it('packs links into one string that reads back as written, whatever the target holds', () => {
    const text = '[[Note]] and [[Other|shown]]\n[odd](a%0A%22b%5C.md) [[Note]]';
    const links = pageLinks(meta(text));
    expect(links).to.deep.equal([
      { target: 'Note', kind: 'wiki', line: 1 },
      { target: 'Other', kind: 'wiki', line: 1 },
      { target: 'notes/a\n"b\\.md', kind: 'markdown', line: 2 },
      { target: 'Note', kind: 'wiki', line: 2 },
    ]);
    expect(typeof meta(text).packedLinks).to.equal('string');
    expect(pageLinks(meta('no links'))).to.deep.equal([]);
  });
});
