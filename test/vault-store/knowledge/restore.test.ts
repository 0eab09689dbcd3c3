import { expect } from 'chai';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Knowledge } from '../../../vault-store/knowledge/knowledge.js';
import { Pages } from '../../../vault-store/pages.js';
import { tempDir } from '../../helpers/temp-dir.js';
import { tempVault, testAuthor } from '../../helpers/temp-vault.js';

const seed = {
  'notes/Gardening.md': '# Gardening\n\nTomatoes need sun. See [[Cooking]] and [[Compost]].\n',
  'notes/Cooking.md': '---\naliases: [Kitchen]\n---\n# Cooking\n\nA tomato sauce. See [[Gardening]].\n',
  'work/Standup.md': '# Standup\n\nDaily sync, notes in [[Kitchen]].\n',
};

/**
 * A warm start leaves the link graph and the page metas for later (see knowledge.ts): what
 * they show once read must not depend on what happened before that.
 */
describe('Knowledge restored from its saved index', () => {
  let ctx: Awaited<ReturnType<typeof tempVault>>;
  let indexDir: { path: string; cleanup: () => void };
  let knowledge: Knowledge;

  beforeEach(async () => {
    ctx = await tempVault(seed);
    indexDir = tempDir('quire-index-');
    await (await Knowledge.open(ctx.vault, { indexDir: indexDir.path, persistDelayMs: false })).close();
    knowledge = await Knowledge.open(ctx.vault, { indexDir: indexDir.path, persistDelayMs: false });
    expect(knowledge.loadedFrom).to.equal('persisted');
  });
  afterEach(async () => {
    await knowledge.close();
    ctx.cleanup();
    indexDir.cleanup();
  });

  /** What a Knowledge built from scratch at the vault's head holds. */
  async function rebuilt(vault: typeof ctx.vault) {
    const fresh = tempDir('quire-index-');
    const built = await Knowledge.open(vault, { indexDir: fresh.path, persistDelayMs: false });
    try {
      return { edges: built.graph.edges(), unresolved: built.graph.unresolved(), metas: [...built.metas.values()] };
    } finally {
      await built.close();
      fresh.cleanup();
    }
  }

  const sortedMetas = (k: Knowledge) => [...k.metas.values()].sort((a, b) => (a.path < b.path ? -1 : 1));

  it('shows changes made before the graph and metas were first read, as a rebuild does', async () => {
    const pages = new Pages(ctx.vault);
    await pages.write(testAuthor, { path: 'notes/Compost.md', content: '# Compost\n\nBack to [[Gardening]].\n' });
    await pages.delete(testAuthor, { path: 'notes/Cooking.md' });
    const expected = await rebuilt(ctx.vault);
    expect(knowledge.graph.edges()).to.deep.equal(expected.edges);
    expect(knowledge.graph.unresolved()).to.deep.equal(expected.unresolved);
    expect(knowledge.graph.backlinks('notes/Gardening.md')).to.deep.equal(['notes/Compost.md']);
    expect(sortedMetas(knowledge)).to.deep.equal(expected.metas.sort((a, b) => (a.path < b.path ? -1 : 1)));
  });

  it('keeps following changes once the graph was read', async () => {
    expect(knowledge.graph.backlinks('notes/Cooking.md')).to.deep.equal(['notes/Gardening.md', 'work/Standup.md']);
    await new Pages(ctx.vault).write(testAuthor, { path: 'work/Standup.md', content: '# Standup\n\nNo links now.\n' });
    expect(knowledge.graph.backlinks('notes/Cooking.md')).to.deep.equal(['notes/Gardening.md']);
    expect(knowledge.graph.edges()).to.deep.equal((await rebuilt(ctx.vault)).edges);
  });

  it('saves metas it never read as they were, for a commit that changed no page', async () => {
    const before = await rebuilt(ctx.vault);
    writeFileSync(join(ctx.dir, 'plan.txt'), 'not a page\n');
    await ctx.vault.reconcile(['plan.txt']);
    await knowledge.close();
    knowledge = await Knowledge.open(ctx.vault, { indexDir: indexDir.path, persistDelayMs: false });
    expect(knowledge.loadedFrom).to.equal('persisted');
    expect(sortedMetas(knowledge)).to.deep.equal(before.metas.sort((a, b) => (a.path < b.path ? -1 : 1)));
    expect(knowledge.graph.edges()).to.deep.equal(before.edges);
  });

  it('counts the metas in its memory estimate once read, not while they are left on disk', () => {
    const unread = knowledge.memoryBytes();
    expect(unread).to.be.greaterThan(0);
    void knowledge.metas;
    expect(knowledge.memoryBytes()).to.be.greaterThan(unread);
  });
});
