import { expect } from 'chai';
import { execFileSync } from 'node:child_process';
import { parsePages } from '../../../vault-store/knowledge/parse-pages.js';
import { tempDir } from '../../helpers/temp-dir.js';

describe('parsePages', () => {
  const dir = tempDir('quire-parse-');
  after(dir.cleanup);

  it('yields every page once, in order, and gives the event loop a turn after each 512 KiB of text', async () => {
    execFileSync('git', ['init', '-q', dir.path]);
    // 70 pages cross a read batch (64); three of 400 KB end slices early inside it.
    const sizes = Array.from({ length: 70 }, (_, i) => ([3, 4, 5].includes(i) ? 400_000 : 100));
    const paths = sizes.map((_, i) => `p${i}.md`);
    const oids = sizes.map((size, i) =>
      execFileSync('git', ['hash-object', '-w', '--stdin'], {
        cwd: dir.path,
        input: `# P${i}\n${'x'.repeat(size)}\n`,
        encoding: 'utf8',
      }).trim(),
    );
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
