import { expect } from 'chai';
import { readFileSync, writeFileSync } from 'node:fs';
import { QuireError } from '../../../vault-store/errors.js';
import { Knowledge } from '../../../vault-store/knowledge/knowledge.js';
import { indexSections } from '../../helpers/index-sections.js';
import { tempDir } from '../../helpers/temp-dir.js';
import { commitFiles, tempVault, testAuthor } from '../../helpers/temp-vault.js';
import { until } from '../../helpers/until.js';

const listed = (k: Knowledge) => [...k.metas.values()].map((m) => JSON.stringify(m)).sort();

/**
 * Page metas are saved whole now and then, and in between as the metas changed since beside
 * the whole section's file, kept as it is: a warm open reads both back into what was live.
 */
describe('page metas saved as the changes since their whole section', () => {
  let ctx: Awaited<ReturnType<typeof tempVault>>;
  let index: ReturnType<typeof tempDir>;
  const open = () => Knowledge.open(ctx.vault, { indexDir: index.path, persistDelayMs: false });
  const commit = (files: Record<string, string | null>) => commitFiles(ctx.vault, files);

  beforeEach(async () => {
    ctx = await tempVault({ 'a.md': '# A\n\nSee [[B]].\n', 'b.md': '---\ntags: [x]\n---\n# B\n', 'c.md': '# C\n' });
    index = tempDir('quire-index-');
    await (await open()).close();
  });
  afterEach(() => {
    ctx.cleanup();
    index.cleanup();
  });

  it('keeps the whole section through saves of a few changes, and a warm open sees every change', async () => {
    const whole = indexSections(index.path).metas;
    let knowledge = await open();
    await ctx.pages.write(testAuthor, { path: 'a.md', content: '# A again\n\n#new-tag\n' });
    await ctx.pages.write(testAuthor, { path: 'd.md', content: '# D\n\n[[C]]\n' });
    await ctx.pages.delete(testAuthor, { path: 'b.md' });
    await knowledge.persist();
    const first = indexSections(index.path);
    expect(first.metas).to.equal(whole);
    expect(first).to.have.property('meta-changes');
    // Saved again, the changes include the earlier ones: a page added and gone, and a page back.
    await ctx.pages.write(testAuthor, { path: 'e.md', content: '# E\n' });
    await ctx.pages.delete(testAuthor, { path: 'e.md' });
    await ctx.pages.write(testAuthor, { path: 'b.md', content: '# B is back\n' });
    const live = listed(knowledge);
    await knowledge.close();
    expect(indexSections(index.path).metas).to.equal(whole);
    knowledge = await open();
    try {
      expect(knowledge.loadedFrom).to.equal('persisted');
      expect(listed(knowledge)).to.deep.equal(live);
      expect(knowledge.metas.get('b.md')?.title).to.equal('B is back');
      expect(knowledge.metas.has('e.md')).to.equal(false);
      // Read back, the changes are still against the same whole section.
      await ctx.pages.write(testAuthor, { path: 'c.md', content: '# C again\n' });
      await knowledge.persist();
      expect(indexSections(index.path).metas).to.equal(whole);
    } finally {
      await knowledge.close();
    }
    knowledge = await open();
    try {
      expect(knowledge.metas.get('c.md')?.title).to.equal('C again');
      expect(knowledge.metas.get('a.md')?.tags).to.include('new-tag');
      expect(knowledge.metas.has('d.md')).to.equal(true);
    } finally {
      await knowledge.close();
    }
  });

  it('answers VAULT_BUSY and rebuilds when the changes were damaged after the open, never serving the whole section alone', async () => {
    let knowledge = await open();
    await ctx.pages.write(testAuthor, { path: 'd.md', content: '# D\n' });
    await knowledge.close();
    knowledge = await open();
    try {
      expect(knowledge.loadedFrom).to.equal('persisted');
      const file = indexSections(index.path)['meta-changes'];
      const bytes = readFileSync(file);
      bytes[bytes.length - 2] ^= 0x20;
      writeFileSync(file, bytes);
      let thrown: unknown;
      try {
        void knowledge.metas.size;
      } catch (err) {
        thrown = err;
      }
      expect(thrown).to.be.instanceOf(QuireError);
      expect((thrown as QuireError).code).to.equal('VAULT_BUSY');
      await until('the rebuild', 10_000, () => {
        try {
          return knowledge.metas.has('d.md');
        } catch {
          return false;
        }
      });
      expect([...knowledge.metas.keys()].sort()).to.deep.equal(['a.md', 'b.md', 'c.md', 'd.md']);
    } finally {
      await knowledge.close();
    }
  });

  it('saves them whole again once the changes pass their bound, then changes against that section', async () => {
    const whole = indexSections(index.path).metas;
    let knowledge = await open();
    const many: Record<string, string> = {};
    for (let i = 0; i < 300; i++) many[`n/p${i}.md`] = `# Page ${i}\n`;
    await commit(many);
    await knowledge.persist();
    const rewritten = indexSections(index.path);
    expect(rewritten.metas).to.not.equal(whole);
    expect(rewritten).to.not.have.property('meta-changes');
    await commit({ 'n/p1.md': '# Page one\n', 'n/p2.md': null });
    const live = listed(knowledge);
    await knowledge.close();
    expect(indexSections(index.path).metas).to.equal(rewritten.metas);
    knowledge = await open();
    try {
      expect(listed(knowledge)).to.deep.equal(live);
      expect(knowledge.metas.get('n/p1.md')?.title).to.equal('Page one');
      expect(knowledge.metas.size).to.equal(302);
    } finally {
      await knowledge.close();
    }
  });
});
