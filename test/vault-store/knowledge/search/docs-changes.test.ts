import { expect } from 'chai';
import { readFileSync, writeFileSync } from 'node:fs';
import { Knowledge } from '../../../../vault-store/knowledge/knowledge.js';
import { indexSections } from '../../../helpers/index-sections.js';
import { tempDir } from '../../../helpers/temp-dir.js';
import { commitFiles, tempVault, testAuthor } from '../../../helpers/temp-vault.js';

const QUERIES = ['tomato', 'sun', 'compost', 'garden*', '"tomato sauce"', 'page', 'kitchen', 'tag:x', 'zucchini OR basil', 'again'];

/**
 * The search index's `docs` and `tables` sections are saved whole now and then, and in
 * between as the pages changed since (`doc-changes`, `table-changes`) beside their files, kept
 * as they are: a warm open must answer every query as a build from scratch does.
 */
describe('search docs and tables saved as the changes since their whole sections', () => {
  let ctx: Awaited<ReturnType<typeof tempVault>>;
  let index: ReturnType<typeof tempDir>;
  const open = () => Knowledge.open(ctx.vault, { indexDir: index.path, persistDelayMs: false });
  const commit = (files: Record<string, string | null>) => commitFiles(ctx.vault, files);
  const answers = (k: Knowledge) => QUERIES.map((q) => k.search(q, { limit: 50 }).results.map((r) => [r.path, r.score, r.title]));

  /** What a build from scratch at the vault's head answers. */
  async function rebuilt() {
    const fresh = tempDir('quire-index-');
    const built = await Knowledge.open(ctx.vault, { indexDir: fresh.path, persistDelayMs: false });
    try {
      expect(built.loadedFrom).to.equal('rebuilt');
      return answers(built);
    } finally {
      await built.close();
      fresh.cleanup();
    }
  }

  beforeEach(async () => {
    ctx = await tempVault({
      'a.md': '# A\n\nTomatoes need sun. See [[B]].\n',
      'b.md': '---\ntags: [x]\n---\n# B\n\nA tomato sauce with basil.\n',
      'c.md': '# C\n\nCompost and the garden.\n',
    });
    index = tempDir('quire-index-');
    await (await open()).close();
  });
  afterEach(() => {
    ctx.cleanup();
    index.cleanup();
  });

  it('keeps both files through saves of a few changes, and a warm open answers as a rebuild does', async () => {
    const whole = indexSections(index.path);
    let knowledge = await open();
    await ctx.pages.write(testAuthor, { path: 'a.md', content: '# A again\n\nZucchini in the garden, no sun.\n' });
    await ctx.pages.write(testAuthor, { path: 'd.md', content: '# D\n\nA page about the kitchen.\n' });
    await ctx.pages.delete(testAuthor, { path: 'b.md' });
    await knowledge.persist();
    const first = indexSections(index.path);
    expect([first.docs, first.tables]).to.deep.equal([whole.docs, whole.tables]);
    expect(first).to.include.keys('doc-changes', 'table-changes');
    // The page removed leaves its id for the next one; one more past the first save's pages.
    await ctx.pages.write(testAuthor, { path: 'e.md', content: '---\ntags: [x]\n---\n# E\n\nBasil page.\n' });
    await ctx.pages.write(testAuthor, { path: 'f.md', content: '# F\n\nTomato sauce again.\n' });
    const live = answers(knowledge);
    await knowledge.close();
    expect(indexSections(index.path).tables).to.equal(whole.tables);
    knowledge = await open();
    try {
      expect(knowledge.loadedFrom).to.equal('persisted');
      expect(answers(knowledge)).to.deep.equal(live);
      expect(live).to.deep.equal(await rebuilt());
      // Read back, the changes are still against the same whole sections, the earlier ones kept.
      await ctx.pages.write(testAuthor, { path: 'c.md', content: '# C again\n\nCompost only.\n' });
      await knowledge.persist();
      expect(indexSections(index.path).docs).to.equal(whole.docs);
    } finally {
      await knowledge.close();
    }
    knowledge = await open();
    try {
      expect(answers(knowledge)).to.deep.equal(await rebuilt());
      expect(knowledge.search('zucchini').results.map((r) => r.path)).to.deep.equal(['a.md']);
    } finally {
      await knowledge.close();
    }
  });

  it('saves them whole again once the changes pass their bound, then changes against those', async () => {
    const whole = indexSections(index.path);
    let knowledge = await open();
    const many: Record<string, string> = {};
    for (let i = 0; i < 300; i++) many[`n/p${i}.md`] = `# Page ${i}\n\nword${i % 7} tomato\n`;
    await commit(many);
    await knowledge.persist();
    const rewritten = indexSections(index.path);
    expect(rewritten.tables).to.not.equal(whole.tables);
    expect(rewritten.docs).to.not.equal(whole.docs);
    expect(rewritten).to.not.include.keys('doc-changes', 'table-changes');
    await commit({ 'n/p1.md': '# Page one\n\nsun and compost\n', 'n/p2.md': null, 'g.md': '# G\n\nword3 garden\n' });
    const live = answers(knowledge);
    await knowledge.close();
    expect(indexSections(index.path).tables).to.equal(rewritten.tables);
    knowledge = await open();
    try {
      expect(knowledge.loadedFrom).to.equal('persisted');
      expect(answers(knowledge)).to.deep.equal(live);
      expect(live).to.deep.equal(await rebuilt());
    } finally {
      await knowledge.close();
    }
  });

  for (const section of ['doc-changes', 'table-changes', 'offsets']) {
    it(`rebuilds rather than serve a torn index when ${section} is damaged`, async () => {
      let knowledge = await open();
      await ctx.pages.write(testAuthor, { path: 'd.md', content: '# D\n\nA page about the kitchen.\n' });
      await knowledge.close();
      const file = indexSections(index.path)[section];
      const bytes = readFileSync(file);
      bytes[bytes.length - 1] ^= 0x01;
      writeFileSync(file, bytes);
      knowledge = await open();
      try {
        expect(knowledge.loadedFrom).to.equal('rebuilt');
        expect(answers(knowledge)).to.deep.equal(await rebuilt());
      } finally {
        await knowledge.close();
      }
    });
  }
});
