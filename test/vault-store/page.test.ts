import { expect } from 'chai';
import { parsePage } from '../../vault-store/page.js';

describe('page parsing', () => {
  it('takes the title from frontmatter, else the first H1, else the file name', () => {
    expect(parsePage('a/b.md', '---\ntitle: From FM\n---\n# Heading\n').title).to.equal('From FM');
    expect(parsePage('a/b.md', 'text\n# Heading one\n# Two\n').title).to.equal('Heading one');
    expect(parsePage('a/My Page.md', 'no heading').title).to.equal('My Page');
  });

  it('collects frontmatter and inline tags, but not headings, numbers or code', () => {
    const page = parsePage('p.md', '---\ntags: [alpha, "#beta"]\n---\n# Title\nText #gamma and #1 and #a/b-c.\n```\n#notatag\n```\n`#nope` ok');
    expect(page.tags).to.deep.equal(['alpha', 'beta', 'gamma', 'a/b-c']);
  });

  it('collects wiki links (alias, heading, embed) and relative markdown links with lines', () => {
    const page = parsePage('dir/p.md', 'x\n[[Target|shown]] [[Other#Sec]] ![[img.png]]\n[md](../up.md) [web](https://x.y) [anchor](#h) [sp](my%20note.md)');
    expect(page.links.map((l) => [l.target, l.kind, l.line])).to.deep.equal([
      ['Target', 'wiki', 2], ['Other', 'wiki', 2], ['img.png', 'wiki', 2],
      ['up.md', 'markdown', 3], ['dir/my note.md', 'markdown', 3],
    ]);
  });

  it('keeps serving a page whose frontmatter is invalid YAML', () => {
    const page = parsePage('p.md', '---\ntitle: [unclosed\n---\n# Still here\n');
    expect(page.frontmatterError).to.be.a('string');
    expect(page.frontmatter).to.deep.equal({});
    expect(page.title).to.equal('Still here');
  });
});
