import { expect } from 'chai';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { Knowledge, type KnowledgeOptions } from '../../../vault-store/knowledge/knowledge.js';
import { Vault } from '../../../vault-store/vault.js';
import { corruptPackedObject } from '../../helpers/corrupt-object.js';
import { tempDir } from '../../helpers/temp-dir.js';
import { tempVault, testAuthor } from '../../helpers/temp-vault.js';
import { answers, pages } from './build-fixture.js';

describe('the index build in a builder process', () => {
  let ctx: Awaited<ReturnType<typeof tempVault>>;
  const dirs: ReturnType<typeof tempDir>[] = [];
  const open = (options: Partial<KnowledgeOptions> = {}, vault = ctx.vault) => {
    const index = tempDir('quire-index-');
    dirs.push(index);
    return Knowledge.open(vault, { indexDir: index.path, persistDelayMs: false, ...options });
  };

  beforeEach(async () => {
    ctx = await tempVault(pages(60));
  });
  afterEach(() => {
    ctx.cleanup();
    for (const dir of dirs.splice(0)) dir.cleanup();
  });

  it('answers exactly as a build in the calling thread, and as a warm reopen of what it saved', async () => {
    const inBuilder = await open({ builderMinPages: 0 });
    const inThread = await open({ builderMinPages: Infinity });
    expect(inBuilder.loadedFrom).to.equal('rebuilt');
    const expected = await answers(inThread);
    expect(expected.search.flat()).to.have.length.greaterThan(0);
    expect(await answers(inBuilder)).to.deep.equal(expected);
    await inBuilder.close();
    const warm = await Knowledge.open(await Vault.open(ctx.dir), { indexDir: dirs[0].path, persistDelayMs: false });
    expect(warm.loadedFrom).to.equal('persisted');
    expect(await answers(warm)).to.deep.equal(expected);
    await Promise.all([warm.close(), inThread.close()]);
  });

  it('rebuilds in the builder with progress, still serving the old index meanwhile, and applies a write queued behind it', async () => {
    const knowledge = await open({ builderMinPages: 0 });
    const heard: number[][] = [];
    const rebuilt = knowledge.rebuild((done, total) => heard.push([done, total]));
    expect(knowledge.search('kestrel').results).to.have.length.greaterThan(0);
    const write = ctx.pages.write(testAuthor, { path: 'notes/late.md', content: '# Late\n\nA wren arrives.\n' });
    const { pages } = await rebuilt;
    await write;
    // The write may land before the rebuild takes its turn in the queue, or after it.
    expect(pages).to.be.oneOf([60, 61]);
    expect(heard.at(-1)).to.deep.equal([pages, pages]);
    expect(knowledge.search('wren').results.map((r) => r.path)).to.deep.equal(['notes/late.md']);
    expect(knowledge.indexedCommit).to.equal(ctx.vault.head);
    const fresh = await open({ builderMinPages: Infinity });
    expect(await answers(knowledge)).to.deep.equal(await answers(fresh));
    await Promise.all([knowledge.close(), fresh.close()]);
  });

  it('fails with the error a build in the thread gives, and leaves no index behind, when a page blob is corrupt', async () => {
    const oid = ctx.vault.manifest.get('notes/p7.md')!.oid;
    await ctx.vault.repo.packsSettled(); // a merge of packs in the background would copy the object whole
    corruptPackedObject(ctx.dir, oid);
    const failure = (options: Partial<KnowledgeOptions>) =>
      open(options).then(
        () => expect.fail('opened'),
        (err: Error) => err,
      );
    const [inBuilder, inThread] = [await failure({ builderMinPages: 0 }), await failure({ builderMinPages: Infinity })];
    expect(inBuilder.message).to.equal(inThread.message).and.not.equal('');
    expect(inBuilder.constructor).to.equal(inThread.constructor);
    for (const dir of dirs) expect(readdirSync(join(dir.path, 'knowledge'))).to.deep.equal([]);
  });
});
