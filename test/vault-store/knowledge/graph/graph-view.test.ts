import { expect } from 'chai';
import { backlinksView, graphView } from '../../../../vault-store/knowledge/graph/graph-view.js';
import { graphOf } from './metas.js';

// A chain a → b → c → d, plus e → b, a dangling link in b, and private/ pages.
const pages = {
  'a.md': '# Page A\n#alpha\n[[b]]',
  'b.md': '[[c]]\n[[Nowhere]]\n[[Secret]]',
  'c.md': '[[d]]',
  'd.md': '',
  'e.md': '[b](b.md)',
  'private/Secret.md': '[[a]] [[Hidden Missing]]',
  'private/bridge.md': '[[a]] [[d]]',
};
const notPrivate = (path: string) => !path.startsWith('private/');

describe('graphView and backlinksView', () => {
  it('returns every page with title, tags and degrees, every edge and every unresolved link', () => {
    const { metas, graph } = graphOf(pages);
    const view = graphView(metas, graph);
    expect(view.nodes.map((n) => n.path)).to.deep.equal(['a.md', 'b.md', 'c.md', 'd.md', 'e.md', 'private/Secret.md', 'private/bridge.md']);
    expect(view.nodes[0]).to.deep.equal({ path: 'a.md', title: 'Page A', tags: ['alpha'], kind: 'page', in: 2, out: 1 });
    expect(view.edges).to.deep.include({ source: 'e.md', target: 'b.md', kind: 'markdown' });
    expect(view.edges).to.have.length(8);
    expect(view.unresolved).to.deep.equal([
      { source: 'b.md', target: 'Nowhere' },
      { source: 'private/Secret.md', target: 'Hidden Missing' },
    ]);
  });

  it('returns the neighbourhood of a page within depth, following links both ways', () => {
    const { metas, graph } = graphOf(pages);
    const at = (depth?: number) => graphView(metas, graph, { path: 'c.md', depth, visible: notPrivate }).nodes.map((n) => n.path);
    expect(at(0)).to.deep.equal(['c.md']);
    expect(at()).to.deep.equal(['b.md', 'c.md', 'd.md']);
    expect(at(2)).to.deep.equal(['a.md', 'b.md', 'c.md', 'd.md', 'e.md']);
    const view = graphView(metas, graph, { path: 'c.md', visible: notPrivate });
    expect(view.edges).to.deep.equal([
      { source: 'b.md', target: 'c.md', kind: 'wiki' },
      { source: 'c.md', target: 'd.md', kind: 'wiki' },
    ]);
    expect(view.unresolved).to.deep.equal([
      { source: 'b.md', target: 'Nowhere' },
      { source: 'b.md', target: 'Secret' },
    ]);
  });

  it('rejects a depth outside 0..5 and an unknown page', () => {
    const { metas, graph } = graphOf(pages);
    expect(() => graphView(metas, graph, { path: 'a.md', depth: 6 }))
      .to.throw()
      .with.property('code', 'INVALID_REQUEST');
    expect(() => graphView(metas, graph, { path: 'a.md', depth: 1.5 }))
      .to.throw()
      .with.property('code', 'INVALID_REQUEST');
    expect(() => graphView(metas, graph, { path: 'zz.md' }))
      .to.throw()
      .with.property('code', 'NOT_FOUND');
    expect(() => backlinksView(metas, graph, 'zz.md'))
      .to.throw()
      .with.property('code', 'NOT_FOUND');
  });

  it('hides invisible pages completely: no node, no edge end, no unresolved source, no name', () => {
    const { metas, graph } = graphOf(pages);
    const view = graphView(metas, graph, { visible: notPrivate });
    const text = JSON.stringify(view);
    expect(text).not.to.match(/private|Hidden/);
    expect(view.nodes.map((n) => n.path)).to.deep.equal(['a.md', 'b.md', 'c.md', 'd.md', 'e.md']);
    expect(view.nodes.find((n) => n.path === 'a.md')).to.include({ in: 0, out: 1 });
    expect(view.nodes.find((n) => n.path === 'b.md')).to.include({ in: 2, out: 1 });
    // b.md's [[Secret]] reads exactly like its [[Nowhere]]: nothing tells that a hidden page answers it.
    expect(view.unresolved).to.deep.equal([
      { source: 'b.md', target: 'Nowhere' },
      { source: 'b.md', target: 'Secret' },
    ]);
  });

  it('does not let a hidden page bridge a neighbourhood', () => {
    const { metas, graph } = graphOf(pages);
    expect(graphView(metas, graph, { path: 'a.md', depth: 1 }).nodes.map((n) => n.path)).to.include('private/bridge.md');
    const hidden = graphView(metas, graph, { path: 'a.md', depth: 2, visible: notPrivate });
    expect(hidden.nodes.map((n) => n.path)).to.deep.equal(['a.md', 'b.md', 'c.md', 'e.md']);
    expect(() => graphView(metas, graph, { path: 'private/Secret.md', visible: notPrivate }))
      .to.throw()
      .with.property('code', 'NOT_FOUND');
  });

  it('lists backlinks with titles, leaving out hidden sources', () => {
    const { metas, graph } = graphOf(pages);
    expect(backlinksView(metas, graph, 'a.md')).to.deep.equal({
      path: 'a.md',
      backlinks: [
        { path: 'private/Secret.md', title: 'Secret' },
        { path: 'private/bridge.md', title: 'bridge' },
      ],
    });
    expect(backlinksView(metas, graph, 'a.md', notPrivate)).to.deep.equal({ path: 'a.md', backlinks: [] });
    expect(backlinksView(metas, graph, 'b.md', notPrivate).backlinks.map((b) => b.path)).to.deep.equal(['a.md', 'e.md']);
    expect(() => backlinksView(metas, graph, 'private/Secret.md', notPrivate))
      .to.throw()
      .with.property('code', 'NOT_FOUND');
  });

  describe('with attachments', () => {
    // a embeds img/a.png by path and links a PDF by name; c embeds the image by name; private/ embeds a hidden scan.
    const withFiles = {
      ...pages,
      'a.md': '# Page A\n#alpha\n[[b]] ![](img/a.png) [[report.pdf]]',
      'c.md': '[[d]] ![[a.png]] ![[missing.png]]',
      'private/bridge.md': '[[a]] [[d]] ![[secret/scan.jpg]]',
    };
    const attachments = ['docs/report.pdf', 'img/a.png', 'img/unused.png', 'secret/scan.jpg'];
    const noSecrets = (path: string) => notPrivate(path) && !path.startsWith('secret/');

    it('adds the attachments pages embed or link as nodes of kind attachment, with their edges and counts', () => {
      const { metas, graph } = graphOf(withFiles);
      const view = graphView(metas, graph, { attachments, visible: noSecrets });
      expect(view.nodes.filter((n) => n.kind === 'attachment')).to.deep.equal([
        { path: 'docs/report.pdf', title: 'report.pdf', tags: [], kind: 'attachment', in: 1, out: 0 },
        { path: 'img/a.png', title: 'a.png', tags: [], kind: 'attachment', in: 2, out: 0 },
      ]);
      expect(view.nodes.map((n) => n.path)).to.deep.equal(['a.md', 'b.md', 'c.md', 'd.md', 'docs/report.pdf', 'e.md', 'img/a.png']);
      expect(view.nodes.find((n) => n.path === 'a.md')).to.include({ kind: 'page', out: 3 });
      expect(view.edges).to.deep.include.members([
        { source: 'a.md', target: 'img/a.png', kind: 'markdown' },
        { source: 'a.md', target: 'docs/report.pdf', kind: 'wiki' },
        { source: 'c.md', target: 'img/a.png', kind: 'wiki' },
      ]);
      expect(JSON.stringify(view)).not.to.match(/secret|unused/);
    });

    it('centres a neighbourhood on an attachment, one step beyond the pages embedding it', () => {
      const { metas, graph } = graphOf(withFiles);
      const at = (depth: number) =>
        graphView(metas, graph, { path: 'img/a.png', depth, attachments, visible: noSecrets }).nodes.map((n) => n.path);
      expect(at(0)).to.deep.equal(['img/a.png']);
      expect(at(1)).to.deep.equal(['a.md', 'c.md', 'img/a.png']);
      expect(at(2)).to.deep.equal(['a.md', 'b.md', 'c.md', 'd.md', 'docs/report.pdf', 'img/a.png']);
      expect(graphView(metas, graph, { path: 'c.md', depth: 1, attachments }).nodes.map((n) => n.path)).to.include('img/a.png');
      expect(() => graphView(metas, graph, { path: 'secret/scan.jpg', attachments, visible: noSecrets }))
        .to.throw()
        .with.property('code', 'NOT_FOUND');
    });

    it('lists the pages embedding an attachment as its backlinks, hidden ones left out', () => {
      const { metas, graph } = graphOf(withFiles);
      expect(backlinksView(metas, graph, 'img/a.png', notPrivate, attachments)).to.deep.equal({
        path: 'img/a.png',
        backlinks: [
          { path: 'a.md', title: 'Page A' },
          { path: 'c.md', title: 'c' },
        ],
      });
      expect(backlinksView(metas, graph, 'img/unused.png', undefined, attachments).backlinks).to.deep.equal([]);
      expect(backlinksView(metas, graph, 'secret/scan.jpg', undefined, attachments).backlinks.map((b) => b.path)).to.deep.equal([
        'private/bridge.md',
      ]);
      for (const hidden of ['secret/scan.jpg', 'img/none.png']) {
        expect(() => backlinksView(metas, graph, hidden, noSecrets, attachments))
          .to.throw()
          .with.property('code', 'NOT_FOUND');
      }
    });
  });
});
