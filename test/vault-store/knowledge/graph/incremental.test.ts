import { expect } from 'chai';
import { LinkGraph } from '../../../../vault-store/knowledge/graph/link-graph.js';
import type { PageMeta } from '../../../../vault-store/knowledge/page-meta.js';
import { scaled } from '../../../helpers/soak.js';
import { metaOf, snapshot } from './metas.js';
import { seeded } from './seeded.js';

/** Applies upserts/removes to a graph and a map, and checks the graph against a fresh build. */
class Tracked {
  readonly metas = new Map<string, PageMeta>();
  readonly graph = LinkGraph.build([]);

  put(path: string, content: string): this {
    const meta = metaOf(path, content);
    this.metas.set(path, meta);
    this.graph.upsert(meta);
    return this;
  }

  drop(path: string): this {
    this.metas.delete(path);
    this.graph.remove(path);
    return this;
  }

  expectFresh(): void {
    const fresh = LinkGraph.build(this.metas.values());
    expect(snapshot(this.graph, this.metas.keys())).to.deep.equal(snapshot(fresh, this.metas.keys()));
  }
}

describe('LinkGraph incremental updates', () => {
  it('moves links to a new page with a shorter path, and back when it is deleted', () => {
    const t = new Tracked().put('src.md', '[[Note]]').put('deep/er/Note.md', '');
    expect(t.graph.outgoing('src.md')).to.deep.equal(['deep/er/Note.md']);
    t.put('Note.md', '');
    expect(t.graph.outgoing('src.md')).to.deep.equal(['Note.md']);
    expect(t.graph.backlinks('deep/er/Note.md')).to.deep.equal([]);
    t.expectFresh();
    t.drop('Note.md');
    expect(t.graph.backlinks('deep/er/Note.md')).to.deep.equal(['src.md']);
    t.drop('deep/er/Note.md');
    expect(t.graph.unresolved()).to.deep.equal([{ source: 'src.md', target: 'Note' }]);
    t.expectFresh();
  });

  it("re-resolves a link when a page appears in its source's own folder", () => {
    const t = new Tracked().put('zz/src.md', '[[Note]]').put('a/Note.md', '');
    t.put('zz/Note.md', '');
    expect(t.graph.outgoing('zz/src.md')).to.deep.equal(['zz/Note.md']);
    t.drop('zz/Note.md');
    expect(t.graph.outgoing('zz/src.md')).to.deep.equal(['a/Note.md']);
    t.expectFresh();
  });

  it('follows a rename: backlinks move to the new path, or the link becomes unresolved', () => {
    const t = new Tracked().put('a.md', '[[Topic]] [b](b/Topic.md)').put('b/Topic.md', '[[a]]');
    t.drop('b/Topic.md').put('c/Topic.md', '[[a]]');
    expect(t.graph.backlinks('c/Topic.md')).to.deep.equal(['a.md']);
    expect(t.graph.unresolved()).to.deep.equal([{ source: 'a.md', target: 'b/Topic.md' }]);
    t.drop('c/Topic.md').put('c/Subject.md', '[[a]]');
    expect(t.graph.backlinks('a.md')).to.deep.equal(['c/Subject.md']);
    expect(t.graph.outgoing('a.md')).to.deep.equal([]);
    t.expectFresh();
  });

  it('re-resolves links when a page gains or loses an alias', () => {
    const t = new Tracked().put('src.md', '[[Nick]]').put('Jane.md', 'no aliases');
    expect(t.graph.unresolved()).to.have.length(1);
    t.put('Jane.md', '---\naliases: Nick\n---\nnow aliased');
    expect(t.graph.backlinks('Jane.md')).to.deep.equal(['src.md']);
    t.put('Jane.md', '---\naliases: [Other]\n---\n');
    expect(t.graph.backlinks('Jane.md')).to.deep.equal([]);
    t.expectFresh();
  });

  it('updates a page whose own links changed, keeping counts of repeated links right', () => {
    const t = new Tracked().put('a.md', '[[b]] [[b]] [[c]]').put('b.md', '').put('c.md', '');
    t.put('a.md', '[[b]]');
    expect(t.graph.backlinks('c.md')).to.deep.equal([]);
    expect(t.graph.inDegree('b.md')).to.equal(1);
    t.put('a.md', 'none');
    expect(t.graph.edges()).to.deep.equal([]);
    t.expectFresh();
  });

  it('equals a fresh build after every step of a random sequence of upserts and removes', () => {
    const random = seeded(7);
    const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)];
    const names = ['Alpha', 'beta', 'Gamma', 'gamma', 'Δelta', 'Note', 'note'];
    const folders = ['', 'a/', 'b/', 'a/b/', 'aa/', 'x/a/'];
    const link = () => {
      const name = pick(names);
      const r = random();
      if (r < 0.15) return `[md](${pick(folders)}${name}.md)`;
      if (r < 0.3) return `[[${pick(folders)}${name}]]`;
      if (r < 0.4) return `[[${name}#Heading|shown]]`;
      return `[[${name}]]`;
    };
    const t = new Tracked();
    for (let step = 0, steps = scaled(150, 400); step < steps; step++) {
      const existing = [...t.metas.keys()];
      if (existing.length > 0 && random() < 0.3) {
        t.drop(pick(existing));
      } else {
        const path = existing.length > 0 && random() < 0.4 ? pick(existing) : `${pick(folders)}${pick(names)}.md`;
        const aliases = random() < 0.3 ? `---\naliases: [${pick(names)}]\n---\n` : '';
        const links = Array.from({ length: Math.floor(random() * 5) }, link).join('\n');
        t.put(path, `${aliases}${links}\n`);
      }
      t.expectFresh();
    }
    expect(t.graph.size).to.equal(t.metas.size);
  });
});
