import { expect } from 'chai';
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Knowledge, type KnowledgeOptions } from '../../../vault-store/knowledge/knowledge.js';
import { Vault } from '../../../vault-store/vault.js';
import { corruptPackedObject } from '../../helpers/corrupt-object.js';
import { tempDir } from '../../helpers/temp-dir.js';
import { gitIn, tempVault, testAuthor } from '../../helpers/temp-vault.js';

const WORDS = ['amber', 'basalt', 'cedar', 'delta', 'ember', 'fjord', 'granite', 'heron', 'iris', 'juniper', 'kestrel', 'lichen'];
const QUERIES = ['amber', 'kestrel heron', 'fjord*', '"cedar delta"', 'p7', 'granite -iris', 'soil'];

/** Pages with front-matter, tags, links, tasks and repeated words: every part of the state has something to hold. */
function pages(count: number): Record<string, string> {
  const out: Record<string, string> = {};
  for (let i = 0; i < count; i++) {
    const words = Array.from({ length: 40 + ((i * 7) % 60) }, (_, j) => WORDS[(i * 5 + j * j) % WORDS.length]);
    out[`notes/p${i}.md`] =
      `---\nrating: ${i % 5}\ntags: [t${i % 3}]\n---\n# Page ${i} ${WORDS[i % WORDS.length]}\n\n${words.join(' ')} [[p${(i + 1) % count}]]\n\n` +
      `- [${i % 2 ? 'x' : ' '}] buy soil ${i} 📅 2030-01-0${1 + (i % 9)}\n`;
  }
  return out;
}

/** Everything a state answers: search, metas, graph, tasks and a query over fields. */
async function answers(k: Knowledge) {
  const query = await k.query({ where: { '>=': [{ var: 'rating' }, 2] }, sort: [{ field: 'path' }], limit: 100 }, () => true, 2000);
  return {
    search: QUERIES.map((q) => k.search(q).results),
    metas: [...k.metas.values()].sort((a, b) => a.path.localeCompare(b.path)),
    backlinks: [...k.metas.keys()].sort().map((p) => k.graph.backlinks(p)),
    tasks: k.tasks({ status: 'all', limit: 1000 }).tasks,
    query: query.rows,
    commit: k.indexedCommit,
  };
}

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

describe('an index build killed mid-way', () => {
  it('leaves nothing the next start serves: it rebuilds and answers as a fresh build', async function () {
    this.timeout(60_000);
    const vault = tempDir('quire-vault-');
    const index = tempDir('quire-index-');
    const fresh = tempDir('quire-index-');
    try {
      for (const [path, text] of Object.entries(pages(1500))) writeFileSync(join(vault.path, path.replace('notes/', '')), text);
      gitIn(vault.path, 'init', '-q', '-b', 'main');
      gitIn(vault.path, 'add', '-A');
      gitIn(vault.path, '-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-qm', 'pages');
      const opened = await Vault.open(vault.path);
      const rebuilt = await Knowledge.open(opened, { indexDir: fresh.path, persistDelayMs: false, builderMinPages: Infinity });
      const expected = await answers(rebuilt);
      await rebuilt.close();
      let killedMidBuild = 0;
      for (const afterMs of [100, 600, 1200]) {
        rmSync(index.path, { recursive: true, force: true });
        if ((await buildUntilKilled(vault.path, index.path, afterMs)) === 'killed') killedMidBuild += 1;
        const manifest = join(index.path, 'knowledge', 'manifest');
        const saved = existsSync(manifest) && readFileSync(manifest, 'utf8');
        const recovered = await Knowledge.open(opened, { indexDir: index.path, persistDelayMs: false, builderMinPages: Infinity });
        try {
          const why = `killed ${afterMs} ms into the build`;
          expect(recovered.loadedFrom, why).to.equal(saved ? 'persisted' : 'rebuilt');
          expect(await answers(recovered), why).to.deep.equal(expected);
        } finally {
          await recovered.close();
        }
      }
      expect(killedMidBuild, 'kills that landed before the build was saved').to.be.greaterThan(0);
    } finally {
      [vault, index, fresh].forEach((d) => d.cleanup());
    }
  });
});

/**
 * Runs the crash-builder child from sources (a bundle leaves out the builder's file, so it
 * would build in its own thread) and SIGKILLs it `afterMs` after its build started; its
 * builder, a child of its own, stops when it notices.
 */
function buildUntilKilled(dir: string, indexDir: string, afterMs: number): Promise<'killed' | 'built'> {
  return new Promise((resolve, reject) => {
    const fixture = join(import.meta.dirname, '../../fixtures/crash-builder.ts');
    const child = spawn(process.execPath, ['--import', 'tsx', fixture, dir, indexDir], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => {
      if (!out) setTimeout(() => child.kill('SIGKILL'), afterMs);
      out += chunk.toString();
    });
    child.on('error', reject);
    child.on('exit', () => resolve(out.includes('ready') ? 'built' : 'killed'));
  });
}
