import { expect } from 'chai';
import { LinkGraph } from '../../../../vault-store/knowledge/graph/link-graph.js';
import { pageMeta, type PageMeta } from '../../../../vault-store/knowledge/page-meta.js';
import { isPagePath } from '../../../../vault-store/paths.js';
import type { Vault } from '../../../../vault-store/vault.js';
import { tempVault, testAuthor } from '../../../helpers/temp-vault.js';
import { snapshot } from './metas.js';

async function metaAt(vault: Vault, path: string): Promise<PageMeta> {
  const file = (await vault.readFile(path))!;
  return pageMeta(path, file.oid, file.content);
}

async function freshGraph(vault: Vault): Promise<LinkGraph> {
  return LinkGraph.build(await Promise.all(vault.manifest.pages().map((p) => metaAt(vault, p))));
}

describe('LinkGraph kept by commit events of a real vault', () => {
  let ctx: Awaited<ReturnType<typeof tempVault>>;
  afterEach(() => ctx?.cleanup());

  it('follows writes, renames and deletions exactly like a rebuild from HEAD', async () => {
    ctx = await tempVault({
      'index.md': '[[Project]] [[people/Ann]]',
      'work/Project.md': '[[Ann]] [notes](../notes/Log.md)',
      'people/Ann.md': '---\naliases: [Annie]\n---\n[[Project]]',
      'notes/Log.md': '[[Annie]]',
    });
    const { vault } = ctx;
    const graph = await freshGraph(vault);
    vault.onCommit(async (event) => {
      for (const change of event.changes) {
        if (!isPagePath(change.path)) continue;
        if (change.op === 'delete') graph.remove(change.path);
        else graph.upsert(await metaAt(vault, change.path));
      }
    });

    // Rename people/Ann.md → team/Ann.md in one commit: links by name follow, the path link breaks.
    const ann = (await vault.readFile('people/Ann.md'))!.content;
    await vault.mutate(testAuthor, 'Move Ann', () => [
      { path: 'people/Ann.md', content: null },
      { path: 'team/Ann.md', content: ann },
    ]);
    expect(graph.backlinks('team/Ann.md')).to.deep.equal(['notes/Log.md', 'work/Project.md']);
    expect(graph.unresolved()).to.deep.equal([{ source: 'index.md', target: 'people/Ann' }]);

    await ctx.pages.write(testAuthor, { path: 'Project.md', content: 'a shorter Project' });
    expect(graph.backlinks('Project.md')).to.deep.equal(['index.md', 'team/Ann.md']);
    expect(graph.backlinks('work/Project.md')).to.deep.equal([]);

    await ctx.pages.delete(testAuthor, { path: 'notes/Log.md' });
    expect(graph.outgoing('work/Project.md')).to.deep.equal(['team/Ann.md']);
    expect(snapshot(graph, vault.manifest.pages())).to.deep.equal(snapshot(await freshGraph(vault), vault.manifest.pages()));
  });
});
