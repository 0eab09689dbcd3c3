import { expect } from 'chai';
import { LinkGraph } from '../../../../vault-store/knowledge/graph/link-graph.js';
import type { PageMeta } from '../../../../vault-store/knowledge/page-meta.js';
import { metaOf } from './metas.js';
import { seeded } from './seeded.js';

const PAGES = 1000;
const LINKS = 6;

/** Pages in 20 folders, each linking six others by name (some links to pages that don't exist). */
function vault(): PageMeta[] {
  const random = seeded(3);
  return Array.from({ length: PAGES }, (_, i) => {
    const links = Array.from({ length: LINKS }, () => `[[Page number ${Math.floor(random() * PAGES * 1.1)}]]`);
    return metaOf(`folder ${i % 20}/Page number ${i}.md`, `# Page ${i}\n${links.join('\n')}\n`);
  });
}

describe('LinkGraph memory', () => {
  it('holds links without an object each: under 200 bytes per link, all included', () => {
    const graph = LinkGraph.build(vault());
    expect(graph.memoryBytes() / (PAGES * LINKS)).to.be.below(200);
  });

  it('does not grow when pages are rewritten, or removed and added again', () => {
    const metas = vault();
    const graph = LinkGraph.build(metas);
    const built = graph.memoryBytes();
    for (let round = 0; round < 5; round++) for (const meta of metas) graph.upsert(meta);
    for (const meta of metas) graph.remove(meta.path);
    expect(graph.size).to.equal(0);
    for (const meta of metas) graph.upsert(meta);
    // Room left to grow and space not yet compacted, but nothing held per past version.
    expect(graph.memoryBytes()).to.be.below(built * 2);
    expect(graph.edges()).to.deep.equal(LinkGraph.build(metas).edges());
  });
});
