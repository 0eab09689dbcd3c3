import { expect } from 'chai';
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { parsedInWorker, parsePages, type PageList } from '../../../vault-store/knowledge/parse-pages.js';
import { tempDir } from '../../helpers/temp-dir.js';
import { commitFiles, tempVault } from '../../helpers/temp-vault.js';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

/** Two full collections with a turn between: a WeakRef's target is kept until its job ends. */
async function collect(): Promise<void> {
  gc();
  await nextTurn();
  gc();
}

describe('pages parsed in the worker', () => {
  it('lets each batch go once the caller is done with it, before the worker ends', async () => {
    const files: Record<string, string> = {};
    for (let i = 0; i < 300; i++) files[`p${String(i).padStart(3, '0')}.md`] = `# Page ${i}\n\n${'words of a body '.repeat(50)}${i}\n`;
    const ctx = await tempVault();
    try {
      await commitFiles(ctx.vault, files);
      const paths = [...ctx.vault.manifest.pages()];
      const input: PageList = { gitdir: ctx.vault.repo.gitdir, paths, oids: paths.map((p) => ctx.vault.manifest.get(p)!.oid) };
      let first: WeakRef<object> | undefined;
      let batches = 0;
      let seen = 0;
      for await (const batch of parsedInWorker(input)) {
        first ??= new WeakRef(batch[0]);
        batches += 1;
        seen += batch.length;
        if (seen < paths.length) continue;
        // The last batch, the worker still running: the first one must be garbage by now.
        await collect();
        expect(first.deref(), 'the first batch is still held').to.equal(undefined);
      }
      expect([batches > 2, seen]).to.deep.equal([true, 300]);
    } finally {
      ctx.cleanup();
    }
  });
});

describe('parsePages', () => {
  const dir = tempDir('quire-parse-');
  after(dir.cleanup);

  it('yields every page once, in order, and gives the event loop a turn after each 512 KiB of text', async () => {
    execFileSync('git', ['init', '-q', dir.path]);
    // 70 pages cross a read batch (64); three of 400 KB end slices early inside it.
    const sizes = Array.from({ length: 70 }, (_, i) => ([3, 4, 5].includes(i) ? 400_000 : 100));
    const paths = sizes.map((_, i) => `p${i}.md`);
    // Written by git, all in one run (a process each cost ~30 ms in a busy test worker).
    const texts = tempDir('quire-parse-texts-');
    sizes.forEach((size, i) => writeFileSync(join(texts.path, paths[i]), `# P${i}\n${'x'.repeat(size)}\n`));
    const oids = execFileSync('git', ['hash-object', '-w', '--', ...paths.map((path) => join(texts.path, path))], {
      cwd: dir.path,
      encoding: 'utf8',
    })
      .trim()
      .split('\n');
    texts.cleanup();
    const batches: string[][] = [];
    const turns: number[] = [];
    let ticks = 0;
    for await (const batch of parsePages({ gitdir: `${dir.path}/.git`, paths, oids })) {
      batches.push(batch.map((page) => page.path));
      turns.push(ticks);
      setImmediate(() => (ticks += 1));
    }
    expect(batches.flat()).to.deep.equal(paths);
    // 0–4 reach 800 KB at p4; 5–63 end the read batch; then the last six.
    expect(batches.map((b) => b.length)).to.deep.equal([5, 59, 6]);
    expect(turns[1], 'a turn between the slices of one read batch').to.equal(1);
  });
});
