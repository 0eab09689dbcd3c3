import { expect } from 'chai';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { crc32 } from 'node:zlib';
import { Knowledge } from '../../../vault-store/knowledge/knowledge.js';
import { Pages } from '../../../vault-store/pages.js';
import { Vault } from '../../../vault-store/vault.js';
import { tempDir } from '../../helpers/temp-dir.js';
import { tempVault, testAuthor } from '../../helpers/temp-vault.js';

const seed = {
  'notes/Gardening.md': '# Gardening\n\nTomatoes need sun and regular watering.\n',
  'notes/Cooking.md': '# Cooking\n\nA tomato sauce simmers for an hour. See [[Gardening]].\n',
  'work/Standup.md': '---\ntags: [meeting]\n---\n# Standup\n\nDaily sync about the release.\n',
};

describe('Knowledge', () => {
  let ctx: Awaited<ReturnType<typeof tempVault>>;
  let indexDir: { path: string; cleanup: () => void };
  let knowledge: Knowledge;

  beforeEach(async () => {
    ctx = await tempVault(seed);
    indexDir = tempDir('quire-index-');
    knowledge = await Knowledge.open(ctx.vault, { indexDir: indexDir.path, persistDelayMs: false });
  });
  afterEach(async () => {
    await knowledge.close();
    ctx.cleanup();
    indexDir.cleanup();
  });

  const paths = (k: Knowledge, q: string) => k.search(q).results.map((r) => r.path);

  it('builds metas, index and graph from HEAD and states the commit it reflects', () => {
    expect(knowledge.loadedFrom).to.equal('rebuilt');
    expect([...knowledge.metas.keys()].sort()).to.deep.equal(Object.keys(seed).sort());
    expect(knowledge.graph.backlinks('notes/Gardening.md')).to.deep.equal(['notes/Cooking.md']);
    const set = knowledge.search('watering');
    expect(set.indexed_commit).to.equal(ctx.vault.head);
    expect(set.results.map((r) => r.path)).to.deep.equal(['notes/Gardening.md']);
  });

  it('finds a page right after an API write and stops finding deleted text', async () => {
    await ctx.pages.write(testAuthor, { path: 'notes/Birds.md', content: '# Birds\n\nA kestrel hovers over the field.\n' });
    expect(paths(knowledge, 'kestrel')).to.deep.equal(['notes/Birds.md']);
    expect(knowledge.indexedCommit).to.equal(ctx.vault.head);

    await ctx.pages.write(testAuthor, { path: 'notes/Birds.md', content: '# Birds\n\nA heron waits by the pond.\n' });
    expect(paths(knowledge, 'kestrel')).to.deep.equal([]);
    expect(paths(knowledge, 'heron')).to.deep.equal(['notes/Birds.md']);

    await ctx.pages.delete(testAuthor, { path: 'notes/Birds.md' });
    expect(paths(knowledge, 'heron')).to.deep.equal([]);
    expect(knowledge.metas.has('notes/Birds.md')).to.equal(false);
  });

  it('reuses the persisted index on restart instead of rebuilding', async () => {
    await ctx.pages.write(testAuthor, { path: 'notes/Birds.md', content: '# Birds\n\nA kestrel hovers.\n' });
    await knowledge.close();
    const vault = await Vault.open(ctx.dir);
    knowledge = await Knowledge.open(vault, { indexDir: indexDir.path, persistDelayMs: false });
    expect(knowledge.loadedFrom).to.equal('persisted');
    expect(paths(knowledge, 'kestrel')).to.deep.equal(['notes/Birds.md']);
    // The reloaded postings still take edits (their pages' term tables were restored).
    await new Pages(vault).write(testAuthor, {
      path: 'notes/Birds.md',
      content: '# Birds\n\nAn owl.\n',
    });
    expect(paths(knowledge, 'kestrel')).to.deep.equal([]);
    expect(paths(knowledge, 'owl')).to.deep.equal(['notes/Birds.md']);
  });

  it('gives the same scores and snippets after a restart, for counts past one byte and bodies read back from disk', async () => {
    await ctx.pages.write(testAuthor, { path: 'notes/Drums.md', content: `# Drums\n\n${'boom '.repeat(300)}and one tomato.\n` });
    await ctx.pages.write(testAuthor, { path: 'notes/Bells.md', content: `# Bells\n\n${'boom '.repeat(40)}then quiet.\n` });
    const before = [knowledge.search('boom'), knowledge.search('tomato'), knowledge.search('"then quiet"')].map((s) => s.results);
    expect(before[0].map((r) => r.path)).to.deep.equal(['notes/Drums.md', 'notes/Bells.md']);
    await knowledge.close();
    knowledge = await Knowledge.open(await Vault.open(ctx.dir), { indexDir: indexDir.path, persistDelayMs: false });
    expect(knowledge.loadedFrom).to.equal('persisted');
    const after = [knowledge.search('boom'), knowledge.search('tomato'), knowledge.search('"then quiet"')].map((s) => s.results);
    expect(after).to.deep.equal(before);
    expect(after[2].map((r) => r.path)).to.deep.equal(['notes/Bells.md']);
  });

  it('catches up from the tree diff when HEAD moved past the persisted commit', async () => {
    await knowledge.close();
    await ctx.pages.write(testAuthor, { path: 'notes/Birds.md', content: '# Birds\n\nA kestrel hovers.\n' });
    await ctx.pages.delete(testAuthor, { path: 'work/Standup.md' });
    knowledge = await Knowledge.open(ctx.vault, { indexDir: indexDir.path, persistDelayMs: false });
    expect(knowledge.loadedFrom).to.equal('incremental');
    expect(paths(knowledge, 'kestrel')).to.deep.equal(['notes/Birds.md']);
    expect(paths(knowledge, 'release')).to.deep.equal([]);
    expect(knowledge.indexedCommit).to.equal(ctx.vault.head);
  });

  it('detects a corrupted index section and rebuilds', async () => {
    await knowledge.close();
    const dir = join(indexDir.path, 'knowledge');
    const file = join(
      dir,
      readdirSync(dir).find((name) => name.startsWith('postings-'))!,
    );
    const bytes = readFileSync(file);
    bytes[bytes.length - 10] ^= 0xff;
    writeFileSync(file, bytes);
    knowledge = await Knowledge.open(ctx.vault, { indexDir: indexDir.path, persistDelayMs: false });
    expect(knowledge.loadedFrom).to.equal('rebuilt');
    expect(paths(knowledge, 'watering')).to.deep.equal(['notes/Gardening.md']);
  });

  it('rebuilds from a stale index whose commit the repository does not have', async () => {
    await knowledge.close();
    const file = join(indexDir.path, 'knowledge', 'manifest');
    const json = readFileSync(file, 'utf8')
      .split(' ')
      .slice(2)
      .join(' ')
      .replace(/"commit":"[0-9a-f]+"/, `"commit":"${'1'.repeat(40)}"`);
    writeFileSync(file, `quire-knowledge ${crc32(json)} ${json}`);
    knowledge = await Knowledge.open(ctx.vault, { indexDir: indexDir.path, persistDelayMs: false });
    expect(knowledge.loadedFrom).to.equal('rebuilt');
    expect(paths(knowledge, 'sauce')).to.deep.equal(['notes/Cooking.md']);
  });

  it('tells the progress listener of a rebuild how many pages it has read, of all pages', async () => {
    const seen: [number, number][] = [];
    await knowledge.rebuild((done, total) => void seen.push([done, total]));
    expect(seen).to.deep.equal([[3, 3]]);
  });

  it('gives the same results after rebuild as after incremental updates', async () => {
    await ctx.pages.write(testAuthor, {
      path: 'notes/Birds.md',
      content: '# Birds\n\nA tomato-loving kestrel hovers over sun-lit tomatoes.\n',
    });
    await ctx.pages.write(testAuthor, {
      path: 'notes/Gardening.md',
      content: '# Gardening\n\nTomatoes need sun, water and a kestrel to scare mice.\n',
    });
    await ctx.pages.delete(testAuthor, { path: 'work/Standup.md' });
    const queries = ['tomato', 'tomatoes sun', 'kestrel', 'sun*', '"need sun"', 'garden', 'mice'];
    const before = queries.map((q) => knowledge.search(q).results);
    const { pages } = await knowledge.rebuild();
    expect(pages).to.equal(3);
    expect(queries.map((q) => knowledge.search(q).results)).to.deep.equal(before);
  });
});
