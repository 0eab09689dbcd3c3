import { expect } from 'chai';
import { execFileSync } from 'node:child_process';
import { LinkGraph } from '../../../vault-store/knowledge/graph/link-graph.js';
import { CommitCounter, diskBytes, stats } from '../../../vault-store/knowledge/stats.js';
import { gitIn, tempVault, testAuthor } from '../../helpers/temp-vault.js';
import { metasOf } from './graph/metas.js';

const pages = {
  'Home.md': '# Home\n#project #idea\n[[Plan]] [[Missing]] [[Secret]]',
  'work/Plan.md': '---\ntags: [project]\n---\nThe plan has five words. [[Home]] [[Home]]',
  'work/sub/Deep.md': '#idea #project',
  'private/Secret.md': '#secret words here [[Home]] [[Gone]]',
};

describe('stats', () => {
  it('counts pages, words, links, unresolved links, tags by use and pages per top folder', () => {
    const metas = metasOf(pages);
    const result = stats(metas, LinkGraph.build(metas.values()), { commits: 7, diskBytes: 1234 });
    expect(result).to.deep.equal({
      pages: 4,
      words: [...metas.values()].reduce((n, m) => n + m.words, 0),
      links: 7,
      unresolved_links: 2,
      tags: [
        { tag: 'project', count: 3 },
        { tag: 'idea', count: 2 },
        { tag: 'secret', count: 1 },
      ],
      folders: [
        { folder: '', pages: 1 },
        { folder: 'private', pages: 1 },
        { folder: 'work', pages: 2 },
      ],
      commits: 7,
      disk_bytes: 1234,
    });
  });

  it('leaves hidden pages out of every figure, counting links to them as unresolved, and whole-vault figures when not given', () => {
    const metas = metasOf(pages);
    const result = stats(metas, LinkGraph.build(metas.values()), { visible: (p) => !p.startsWith('private/') });
    expect(JSON.stringify(result)).not.to.match(/private|secret/i);
    // [[Secret]] reads as unresolved, exactly like [[Missing]]: nothing tells that a page answers it.
    expect(result).to.include({ pages: 3, links: 5, unresolved_links: 2 });
    expect(result).not.to.have.any.keys('commits', 'disk_bytes');
    expect(result.tags).to.deep.equal([
      { tag: 'project', count: 3 },
      { tag: 'idea', count: 2 },
    ]);
  });

  describe('from a real vault', () => {
    let ctx: Awaited<ReturnType<typeof tempVault>>;
    afterEach(() => ctx?.cleanup());

    it('counts first-parent commits like git rev-list, following new commits', async () => {
      ctx = await tempVault({ 'a.md': 'one', 'b.md': 'two' });
      const gitCount = () => Number(gitIn(ctx.dir, 'rev-list', '--first-parent', '--count', 'HEAD').trim());
      const counter = new CommitCounter(ctx.vault);
      expect(await counter.count())
        .to.equal(gitCount())
        .and.to.equal(3);
      await ctx.pages.write(testAuthor, { path: 'c.md', content: 'three' });
      await ctx.pages.delete(testAuthor, { path: 'a.md' });
      expect(await counter.count())
        .to.equal(gitCount())
        .and.to.equal(5);
    });

    it('measures every file in the vault folder, .git included', async () => {
      ctx = await tempVault({ 'a.md': 'x'.repeat(5000) });
      const find = execFileSync('find', [ctx.dir, '-type', 'f', '-printf', '%s\\n'], { encoding: 'utf8' });
      const expected = find
        .trim()
        .split('\n')
        .reduce((n, line) => n + Number(line), 0);
      const measured = await diskBytes(ctx.dir);
      expect(measured).to.equal(expected).and.to.be.above(5000);
    });
  });
});
