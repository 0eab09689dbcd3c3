import { expect } from 'chai';
import { parsePage } from '../../vault-store/page.js';

describe('page parsing', () => {
  it('takes the title from frontmatter, else the first H1, else the file name', () => {
    expect(parsePage('a/b.md', '---\ntitle: From FM\n---\n# Heading\n').title).to.equal('From FM');
    expect(parsePage('a/b.md', 'text\n# Heading one\n# Two\n').title).to.equal('Heading one');
    expect(parsePage('a/My Page.md', 'no heading').title).to.equal('My Page');
  });

  it('collects frontmatter and inline tags, but not headings, numbers or code', () => {
    const page = parsePage(
      'p.md',
      '---\ntags: [alpha, "#beta"]\n---\n# Title\nText #gamma and #1 and #a/b-c.\n```\n#notatag\n```\n`#nope` ok',
    );
    expect(page.tags).to.deep.equal(['alpha', 'beta', 'gamma', 'a/b-c']);
  });

  it('collects wiki links (alias, heading, embed) and relative markdown links with lines', () => {
    const page = parsePage(
      'dir/p.md',
      'x\n[[Target|shown]] [[Other#Sec]] ![[img.png]]\n[md](../up.md) [web](https://x.y) [anchor](#h) [sp](my%20note.md)',
    );
    expect(page.links.map((l) => [l.target, l.kind, l.line])).to.deep.equal([
      ['Target', 'wiki', 2],
      ['Other', 'wiki', 2],
      ['img.png', 'wiki', 2],
      ['up.md', 'markdown', 3],
      ['dir/my note.md', 'markdown', 3],
    ]);
  });

  it('keeps serving a page whose frontmatter is invalid YAML', () => {
    const page = parsePage('p.md', '---\ntitle: [unclosed\n---\n# Still here\n');
    expect(page.frontmatterError).to.be.a('string');
    expect(page.frontmatter).to.deep.equal({});
    expect(page.title).to.equal('Still here');
  });

  it('takes the title from the first level-1 heading by the CommonMark rule, outside any fence', () => {
    expect(parsePage('p.md', '# C#\n').title).to.equal('C#');
    expect(parsePage('p.md', '````\n# Fenced\n```\n# Still fenced\n````\n#\n  # Real #\n').title).to.equal('Real');
    expect(parsePage('p.md', '    # Indented code\n').title).to.equal('p');
  });

  it('takes no tag from a link target, a code span or a heading line', () => {
    const page = parsePage('p.md', '## Plan #draft\nSee [x](#anchor) (#open) ``a ` #code`` and #real\n');
    expect(page.tags).to.deep.equal(['open', 'real']);
  });

  it('reads front-matter as data only: a ---js block is reported and its text is not body', () => {
    const page = parsePage('p.md', '---js\n{ title: "x" }\n---\n# Body\n');
    expect(page).to.include({ title: 'Body', body: '# Body\n' });
    expect(page.frontmatter).to.deep.equal({});
    expect(page.frontmatterError).to.equal('front-matter language "js" is not supported; only YAML is read');
  });
});
