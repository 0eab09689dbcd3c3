import { expect } from 'chai';
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { copyFileSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { mergeSmallPacks, MERGE_COUNT } from '../../../vault-store/git/pack-merge.js';
import { ObjectReader } from '../../../vault-store/git/object-reader.js';
import { PendingObjects } from '../../../vault-store/git/pending-objects.js';
import { tempDir } from '../../helpers/temp-dir.js';
import { gitIn, tempVault, testAuthor } from '../../helpers/temp-vault.js';

const packsIn = (dir: string, ext = '.pack') =>
  readdirSync(join(dir, '.git/objects/pack'))
    .filter((n) => n.endsWith(ext))
    .sort();

describe('packs the server writes', () => {
  let dir: ReturnType<typeof tempDir>;
  beforeEach(() => {
    dir = tempDir();
    gitIn(dir.path, 'init', '-q', '-b', 'main');
  });
  afterEach(() => dir.cleanup());

  it('writes a pack and index git reads, its index byte for byte what git index-pack makes of the pack', async () => {
    const gitdir = join(dir.path, '.git');
    const pending = new PendingObjects();
    const reader = new ObjectReader(gitdir, pending);
    // Sizes across the header's 4-bit and 7-bit boundaries, an empty blob, a big random one.
    const blobs = [0, 1, 15, 16, 127, 128, 2047, 2048, 100_000].map((n) => randomBytes(n));
    const oids = blobs.map((b) => pending.add('blob', b));
    const tree = pending.add('tree', Buffer.concat([Buffer.from('100644 a.md\0'), Buffer.from(oids[1], 'hex')]));
    expect(Buffer.from(await reader.blob(oids[8])).equals(blobs[8]), 'readable before the flush').to.equal(true);
    const base = await pending.flush(gitdir, reader);
    expect(pending.get(oids[0])).to.equal(undefined);

    blobs.forEach((b, i) => expect(execFileSync('git', ['cat-file', 'blob', oids[i]], { cwd: dir.path }).equals(b)).to.equal(true));
    expect(gitIn(dir.path, 'ls-tree', tree)).to.equal(`100644 blob ${oids[1]}\ta.md\n`);
    gitIn(dir.path, 'verify-pack', `${base}.idx`);
    gitIn(dir.path, 'fsck', '--strict', '--no-dangling');
    const ours = readFileSync(`${base}.idx`);
    copyFileSync(`${base}.pack`, join(dir.path, 'copy.pack'));
    gitIn(dir.path, 'index-pack', join(dir.path, 'copy.pack'));
    expect(readFileSync(join(dir.path, 'copy.idx')).equals(ours)).to.equal(true);
    // Written again: already in a pack, so no second copy.
    pending.add('blob', blobs[3]);
    expect(await pending.flush(gitdir, reader)).to.equal(undefined);
  });

  it(`merges ${MERGE_COUNT} small packs into one git verifies (deltas of git's own included), leaving kept and big packs alone`, async () => {
    const gitdir = join(dir.path, '.git');
    // A pack of git's with deltas against bases in the same pack (OFS_DELTA).
    const text = randomBytes(4000).toString('hex');
    for (let i = 0; i < 3; i++) {
      writeFileSync(join(dir.path, 'a.md'), `${text}\nversion ${i}\n`);
      gitIn(dir.path, 'add', 'a.md');
      gitIn(dir.path, '-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-q', '-m', `v${i}`);
    }
    gitIn(dir.path, 'repack', '-a', '-d', '-q');
    expect(gitIn(dir.path, 'verify-pack', '-v', join(gitdir, 'objects/pack', packsIn(dir.path, '.idx')[0]))).to.match(/chain length = 1/);
    const pending = new PendingObjects();
    const reader = new ObjectReader(gitdir, pending);
    const written: { oid: string; bytes: Buffer }[] = [];
    for (let i = 0; i < MERGE_COUNT - 2; i++) {
      const bytes = randomBytes(64);
      written.push({ oid: pending.add('blob', bytes), bytes });
      await pending.flush(gitdir, reader);
    }
    // One kept pack, one big one.
    pending.add('blob', Buffer.from('kept'));
    const kept = (await pending.flush(gitdir, reader))!;
    writeFileSync(`${kept}.keep`, '');
    const bigBytes = randomBytes(5 << 20);
    const big = { oid: pending.add('blob', bigBytes), base: '' };
    big.base = (await pending.flush(gitdir, reader))!;
    expect(await mergeSmallPacks(gitdir), 'one short of the count').to.equal(undefined);
    pending.add('blob', Buffer.from('the last small one'));
    await pending.flush(gitdir, reader);
    const before = gitIn(dir.path, 'cat-file', '--batch-all-objects', '--batch-check').split('\n').sort();

    const done = (await mergeSmallPacks(gitdir))!;
    expect(done.merged).to.have.length(MERGE_COUNT);
    await reader.packsChanged(done.base, done.merged);
    expect(packsIn(dir.path)).to.have.members([
      `${done.base.split('/').pop()}.pack`,
      `${kept.split('/').pop()}.pack`,
      `${big.base.split('/').pop()}.pack`,
    ]);
    gitIn(dir.path, 'verify-pack', `${done.base}.idx`);
    gitIn(dir.path, 'fsck', '--strict', '--no-dangling');
    expect(gitIn(dir.path, 'cat-file', '--batch-all-objects', '--batch-check').split('\n').sort()).to.deep.equal(before);
    expect(gitIn(dir.path, 'show', 'HEAD~2:a.md')).to.equal(`${text}\nversion 0\n`);
    for (const { oid, bytes } of written) expect(Buffer.from(await new ObjectReader(gitdir).blob(oid)).equals(bytes)).to.equal(true);
    expect(Buffer.from(await reader.blob(written[0].oid)).equals(written[0].bytes)).to.equal(true);
  });
});

describe('a vault under many lone writes', () => {
  it('is left with few packs (merged as they come), git status clean and fsck passing', async function () {
    this.timeout(20_000);
    const v = await tempVault();
    try {
      for (let i = 0; i < 3 * MERGE_COUNT; i++) await v.pages.write(testAuthor, { path: `n/${i % 7}.md`, content: `write ${i}\n` });
      await v.vault.settle();
      expect(packsIn(v.dir).length).to.be.below(MERGE_COUNT);
      expect(gitIn(v.dir, 'count-objects', '-v')).to.match(/^count: 0$/m);
      expect(gitIn(v.dir, 'status', '--porcelain')).to.equal('');
      gitIn(v.dir, 'fsck', '--strict', '--no-dangling');
    } finally {
      v.cleanup();
    }
  });
});
