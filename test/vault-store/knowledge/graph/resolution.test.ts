import { expect } from 'chai';
import { graphOf } from './metas.js';

/** Where the first link of `from` resolves in a vault of these pages. */
function resolve(pages: Record<string, string>, from: string): (string | null)[] {
  return graphOf(pages)
    .graph.links(from)
    .map((l) => l.resolved);
}

describe('LinkGraph resolution (Obsidian rules)', () => {
  it('resolves [[Name]] by file name anywhere in the vault, case-insensitively', () => {
    const pages = { 'src.md': '[[Deep Note]] and [[deep note]]', 'a/b/c/Deep Note.md': 'x' };
    expect(resolve(pages, 'src.md')).to.deep.equal(['a/b/c/Deep Note.md', 'a/b/c/Deep Note.md']);
  });

  it('prefers the shortest path on ties, then code-point order', () => {
    expect(resolve({ 'src.md': '[[Note]]', 'Note.md': '', 'a/Note.md': '' }, 'src.md')).to.deep.equal(['Note.md']);
    expect(resolve({ 'src.md': '[[Note]]', 'b/Note.md': '', 'a/Note.md': '' }, 'src.md')).to.deep.equal(['a/Note.md']);
    expect(resolve({ 'src.md': '[[Note]]', 'aa/Note.md': '', 'b/Note.md': '' }, 'src.md')).to.deep.equal(['b/Note.md']);
  });

  it("prefers an exact vault path, then the source's own folder, then the shortest path", () => {
    const pages = { 'zz/src.md': '[[Note]] [[b/Note]]', 'zz/Note.md': '', 'a/Note.md': '', 'b/Note.md': '', 'zz/b/Note.md': '' };
    expect(resolve(pages, 'zz/src.md')).to.deep.equal(['zz/Note.md', 'b/Note.md']);
    expect(resolve({ ...pages, 'Note.md': '' }, 'zz/src.md')).to.deep.equal(['Note.md', 'b/Note.md']);
    // An ancestor folder counts for nothing: zz/deep/src.md gets the shortest path.
    expect(resolve({ 'zz/deep/src.md': '[[Note]]', 'zz/Note.md': '', 'a/Note.md': '' }, 'zz/deep/src.md')).to.deep.equal(['a/Note.md']);
    expect(resolve({ 'x/b/src.md': '[[b/Note]]', 'x/b/Note.md': '', 'a/b/Note.md': '' }, 'x/b/src.md')).to.deep.equal(['x/b/Note.md']);
  });

  it('resolves [[folder/Name]] as a path suffix at a folder boundary', () => {
    const pages = {
      'src.md': '[[folder/Name]] [[older/Name]] [[x/folder/name]] [[/Name]]',
      'Name.md': '',
      'x/folder/Name.md': '',
      'y/zfolder/Name.md': '',
    };
    expect(resolve(pages, 'src.md')).to.deep.equal(['x/folder/Name.md', null, 'x/folder/Name.md', 'Name.md']);
  });

  it('strips aliases, headings, block refs and a .md suffix from wiki links', () => {
    const pages = { 'src.md': '[[Target|shown]] [[Target#Part]] [[Target#Part|shown]] [[Target#^block]] [[Target.md]]', 't/Target.md': '' };
    expect(resolve(pages, 'src.md')).to.deep.equal(Array(5).fill('t/Target.md'));
  });

  it('resolves frontmatter aliases, but a file name beats an alias', () => {
    const pages = {
      'src.md': '[[Nick]] [[nick]] [[Other]]',
      'people/Jane.md': '---\naliases: [Nick, Other]\n---\n',
      'Other.md': '',
    };
    expect(resolve(pages, 'src.md')).to.deep.equal(['people/Jane.md', 'people/Jane.md', 'Other.md']);
  });

  it('resolves relative markdown links, with or without .md, by exact vault path', () => {
    const pages = {
      'a/src.md': '[up](../b/Other.md) [bare](../b/Other) [here](Sibling.md) [spaced](My%20Page.md) [nowhere](Other.md)',
      'b/Other.md': '',
      'a/Sibling.md': '',
      'a/My Page.md': '',
    };
    expect(resolve(pages, 'a/src.md')).to.deep.equal(['b/Other.md', 'b/Other.md', 'a/Sibling.md', 'a/My Page.md', null]);
  });

  it('matches unicode names case-insensitively and across NFC/NFD', () => {
    const pages = {
      'src.md': '[[café]] [[Cafe\u0301]] [[ärger]] [[日本語]] [[ΣΟΦΊΑ]]',
      'Café.md': '',
      'de/Ärger.md': '',
      'jp/日本語.md': '',
      'σοφία.md': '',
    };
    expect(resolve(pages, 'src.md')).to.deep.equal(['Café.md', 'Café.md', 'de/Ärger.md', 'jp/日本語.md', 'σοφία.md']);
  });

  it('ignores links to attachments but keeps dotted page names', () => {
    const pages = { 'src.md': '![[photo.png]] [doc](spec.pdf) [[v1.2]] [[Dr. Who]]', 'v1.2.md': '', 'Dr. Who.md': '' };
    const links = graphOf(pages).graph.links('src.md');
    expect(links.map((l) => [l.target, l.resolved])).to.deep.equal([
      ['v1.2', 'v1.2.md'],
      ['Dr. Who', 'Dr. Who.md'],
    ]);
  });

  it('reports unresolved links once per source and target, and no edge for self-links', () => {
    const { graph } = graphOf({ 'a.md': '# A\n[[Missing]] [[Missing]] [[a]] [[b]]', 'b.md': '[x](gone.md)' });
    expect(graph.unresolved()).to.deep.equal([
      { source: 'a.md', target: 'Missing' },
      { source: 'b.md', target: 'gone.md' },
    ]);
    expect(graph.edges()).to.deep.equal([{ source: 'a.md', target: 'b.md', kind: 'wiki' }]);
    expect(graph.backlinks('a.md')).to.deep.equal([]);
    expect(graph.links('a.md').map((l) => l.line)).to.deep.equal([2, 2, 2, 2]);
  });

  it('keeps one edge per page pair with the kind of the first link, and degree counts', () => {
    const { graph } = graphOf({ 'a.md': '[b](b.md)\n[[b]] [[c]]', 'b.md': '', 'c.md': '[[b]]' });
    expect(graph.edges()).to.deep.equal([
      { source: 'a.md', target: 'b.md', kind: 'markdown' },
      { source: 'a.md', target: 'c.md', kind: 'wiki' },
      { source: 'c.md', target: 'b.md', kind: 'wiki' },
    ]);
    expect([graph.inDegree('b.md'), graph.outDegree('a.md'), graph.inDegree('a.md')]).to.deep.equal([2, 2, 0]);
    expect(graph.backlinks('b.md')).to.deep.equal(['a.md', 'c.md']);
  });

  it('ignores links inside code', () => {
    const { graph } = graphOf({ 'a.md': '```\n[[b]]\n```\n`[[b]]`', 'b.md': '' });
    expect(graph.edges()).to.deep.equal([]);
  });
});
