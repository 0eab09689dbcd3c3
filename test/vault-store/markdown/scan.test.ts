import { expect } from 'chai';
import { scanMarkdown } from '../../../vault-store/markdown/scan.js';

const headings = (text: string) => scanMarkdown(text).headings.map((h) => [h.level, h.text, h.line]);
const links = (text: string) => scanMarkdown(text).links.map((l) => [l.kind, l.embed, l.target, text.slice(l.start, l.end)]);
const tags = (text: string) => scanMarkdown(text).tags.map((t) => t.name);

describe('markdown scanner rules', () => {
  it('opens a fence with up to 3 spaces, not 4, and closes it only with a run of the same character at least as long', () => {
    const text = '    ```\n# after indented\n````\n```\n~~~~\n# hidden\n````  \n# shown\n   ~~~ js\n# hidden too';
    expect(headings(text)).to.deep.equal([
      [1, 'after indented', 2],
      [1, 'shown', 8],
    ]);
    expect(scanMarkdown(text).fences.map((f) => [f.line, text.slice(f.start, f.end)])).to.deep.equal([
      [3, '````\n```\n~~~~\n# hidden\n````  '],
      [9, '   ~~~ js\n# hidden too'],
    ]);
  });

  it('reads ```a``` on one line as inline code, not a fence (a backtick fence has no backtick after it)', () => {
    expect(scanMarkdown('```a``` [[x]]\n# h').fences).to.deep.equal([]);
    expect(links('```a``` [[x]]\n# h').map((l) => l[2])).to.deep.equal(['x']);
  });

  it('reads ATX headings the CommonMark way: a closing run only after a space', () => {
    const text = '# C#\n## Two ##\n#tag\n####### seven\n    # indented\n   ### three ###   \n##\n# #\n#\tTab\n#5 not';
    expect(headings(text)).to.deep.equal([
      [1, 'C#', 1],
      [2, 'Two', 2],
      [3, 'three', 6],
      [2, '', 7],
      [1, '', 8],
      [1, 'Tab', 9],
    ]);
  });

  it('skips code spans, a double-backtick span holding a single backtick included', () => {
    const text = '``a ` [[no]] #no`` [[yes]] #yes `[x](y.md)` ``` [[also]] ``` `open [[after]]';
    expect(links(text).map((l) => l[2])).to.deep.equal(['yes', 'after']);
    expect(tags(text)).to.deep.equal(['yes']);
  });

  it('finds wiki links, embeds and markdown links with their targets, spans and lines', () => {
    const text = 'x\n[[Target|shown]] ![[img.png]] [[Other#Sec]]\n![alt](a%20b.png "Title") [t](p.md) [a [b](c.md) [[]] [x](y z)';
    expect(links(text)).to.deep.equal([
      ['wiki', false, 'Target', '[[Target|shown]]'],
      ['wiki', true, 'img.png', '![[img.png]]'],
      ['wiki', false, 'Other', '[[Other#Sec]]'],
      ['markdown', true, 'a%20b.png', '![alt](a%20b.png "Title")'],
      ['markdown', false, 'p.md', '[t](p.md)'],
      ['markdown', false, 'c.md', '[a [b](c.md)'],
    ]);
    expect(scanMarkdown(text).links.map((l) => l.line)).to.deep.equal([2, 2, 2, 3, 3, 3]);
    const [wiki] = scanMarkdown(text).links;
    expect(text.slice(wiki.targetStart, wiki.targetEnd)).to.equal('Target');
  });

  it('reads tags after whitespace or "(", with a non-digit, never in a link destination or a heading line', () => {
    const text = '# Heading #nottag\n#start and #1 and #a/b-c, (#paren) x#no ##no [x](#anchor) [see #text](p.md) [[P#h]] #café';
    expect(tags(text)).to.deep.equal(['start', 'a/b-c', 'paren', 'text', 'café']);
  });

  it('numbers lines from the start of the text when scanning from an offset, CRLF included', () => {
    const text = '---\r\ntitle: x\r\n---\r\n# One\r\n[[a]]\r\n';
    const scan = scanMarkdown(text, text.indexOf('# One'));
    expect(scan.headings.map((h) => [h.text, h.line])).to.deep.equal([['One', 4]]);
    expect(scan.links.map((l) => l.line)).to.deep.equal([5]);
  });
});
