import { expect } from 'chai';
import git from 'isomorphic-git';
import { randomBytes } from 'node:crypto';
import fs, { chmodSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseTree } from '../../../vault-store/git/tree-parse.js';
import { hashBlob } from '../../../vault-store/git/hash-blob.js';
import { ObjectReader } from '../../../vault-store/git/object-reader.js';
import { gitObjects } from '../../helpers/git-objects.js';
import { gitIn, tempVault, testAuthor } from '../../helpers/temp-vault.js';

type TempVault = Awaited<ReturnType<typeof tempVault>>;

describe('ObjectReader', () => {
  let v: TempVault;
  afterEach(() => v?.cleanup());

  for (const offsets of ['true', 'false']) {
    it(`reads loose and deltified packed objects exactly as git does (repack.useDeltaBaseOffset=${offsets})`, async () => {
      v = await tempVault();
      const base = Array.from({ length: 200 }, (_, i) => `line ${i} of a long page that git will deltify`).join('\n');
      for (let i = 0; i < 12; i++) await v.pages.write(testAuthor, { path: `p${i % 3}.md`, content: `${base}\nedit ${i}\n` });
      // Every version of the three pages, packed with deltas against each other.
      const blobs = gitIn(v.dir, 'rev-list', '--objects', '--all')
        .split('\n')
        .filter((l) => l.includes(' p'))
        .map((l) => l.split(' ')[0]);
      gitIn(v.dir, '-c', `repack.useDeltaBaseOffset=${offsets}`, 'repack', '-a', '-d', '-f', '--depth=50', '--window=50');
      expect(gitIn(v.dir, 'count-objects', '-v')).to.match(/^count: 0$/m);
      const idx = readdirSync(join(v.dir, '.git/objects/pack'))
        .filter((n) => n.endsWith('.idx'))
        .map((n) => `.git/objects/pack/${n}`);
      const packs = gitIn(v.dir, 'verify-pack', '-v', ...idx);
      expect(packs, 'the pack holds deltas').to.match(/chain length = [1-9]/);
      await v.pages.write(testAuthor, { path: 'loose.md', content: 'written after the repack' });
      const reader = new ObjectReader(v.vault.repo.gitdir);
      const oids = [...blobs, v.vault.manifest.get('loose.md')!.oid];
      for (const [oid, expected] of gitObjects(v.dir, oids)) {
        expect(expected.type, oid).to.equal('blob');
        expect(Buffer.from(await reader.blob(oid)).equals(expected.content), oid).to.equal(true);
        // From the headers alone: a delta's own, its base's type (by offset or by id).
        expect(await reader.blobSize(oid), oid).to.equal(expected.content.length);
      }
      const head = await reader.commit(v.vault.head);
      expect(head).to.deep.include({
        tree: gitIn(v.dir, 'rev-parse', 'HEAD^{tree}').trim(),
        parents: [gitIn(v.dir, 'rev-parse', 'HEAD~1').trim()],
      });
      const packed = await reader.commit(head.parents[0]);
      expect(packed.message).to.equal(gitIn(v.dir, 'log', '-1', '--format=%B', 'HEAD~1').replace(/\n$/, ''));
      expect(packed.author.name).to.equal(testAuthor.name);
    });
  }

  it('finds objects that a git gc packed after the reader first looked', async () => {
    v = await tempVault({ 'a.md': 'before the gc' });
    const reader = new ObjectReader(v.vault.repo.gitdir);
    const oid = v.vault.manifest.get('a.md')!.oid;
    expect(Buffer.from(await reader.blob(oid)).toString()).to.equal('before the gc');
    gitIn(v.dir, 'gc', '-q', '--prune=now');
    expect(gitIn(v.dir, 'count-objects', '-v')).to.match(/^count: 0$/m);
    expect(Buffer.from(await reader.blob(oid)).toString()).to.equal('before the gc');
    expect((await reader.commit(v.vault.head)).tree).to.equal(gitIn(v.dir, 'rev-parse', 'HEAD^{tree}').trim());
  });
});

describe('ObjectReader on packed blobs', () => {
  let v: TempVault;
  afterEach(() => v?.cleanup());

  const collect = async (stream: AsyncIterable<Buffer>) => {
    const chunks: Buffer[] = [];
    for await (const chunk of stream) chunks.push(chunk);
    return chunks;
  };

  it('streams a packed blob and gives sizes from the pack headers; the older version, a delta after git gc, is rebuilt', async () => {
    v = await tempVault();
    const commit = (m: string) => gitIn(v.dir, '-c', 'user.name=t', '-c', 'user.email=t@x', 'commit', '-q', '-am', m);
    const v1 = randomBytes(3 * 1024 * 1024);
    writeFileSync(join(v.dir, 'big.bin'), v1);
    gitIn(v.dir, 'add', 'big.bin');
    commit('v1');
    const v2 = Buffer.concat([v1.subarray(0, 1000), Buffer.from('a small edit'), v1.subarray(1000)]);
    writeFileSync(join(v.dir, 'big.bin'), v2);
    commit('v2');
    const [newer, older] = ['HEAD:big.bin', 'HEAD~1:big.bin'].map((rev) => gitIn(v.dir, 'rev-parse', rev).trim());
    gitIn(v.dir, 'gc', '-q', '--prune=now');
    expect(gitIn(v.dir, 'count-objects', '-v')).to.match(/^count: 0$/m);
    const idx = readdirSync(join(v.dir, '.git/objects/pack')).find((n) => n.endsWith('.idx'))!;
    // git keeps the newest version whole and the older one as a delta against it.
    const layout = gitIn(v.dir, 'verify-pack', '-v', `.git/objects/pack/${idx}`);
    expect(layout).to.match(new RegExp(`^${older} blob .* ${newer}$`, 'm'));

    const reader = new ObjectReader(v.vault.repo.gitdir);
    expect(await reader.blobSize(newer)).to.equal(v2.length);
    expect(await reader.blobSize(older)).to.equal(v1.length);
    const whole = await collect(await reader.blobStream(newer));
    expect(whole.length, 'inflated chunk by chunk, not in one piece').to.be.greaterThan(4);
    expect(Buffer.concat(whole).equals(v2)).to.equal(true);
    const range = Buffer.concat(await collect(await reader.blobStream(newer, { start: 999, end: 200_000 })));
    expect(range.equals(v2.subarray(999, 200_001))).to.equal(true);
    expect(Buffer.concat(await collect(await reader.blobStream(older))).equals(v1)).to.equal(true);
    expect(Buffer.concat(await collect(await reader.blobStream(older, { start: 5, end: 9 }))).equals(v1.subarray(5, 10))).to.equal(true);
    const tree = gitIn(v.dir, 'rev-parse', 'HEAD^{tree}').trim();
    const refused = await reader.blobSize(tree).catch((err: Error) => err);
    expect(refused)
      .to.be.instanceOf(Error)
      .with.property('message')
      .that.matches(/not a blob/);
  });
});

describe('reading trees', () => {
  it('gives the entries isomorphic-git gives, loose and packed, and refuses names that escape the folder', async () => {
    const v = await tempVault({ 'a.md': 'a', 'notes/b.md': 'b', 'notes/deep/c.md': 'c' });
    try {
      symlinkSync('a.md', join(v.dir, 'link.md'));
      chmodSync(join(v.dir, 'notes/b.md'), 0o755);
      gitIn(v.dir, 'add', '-A');
      gitIn(v.dir, '-c', 'user.name=t', '-c', 'user.email=t@x', 'commit', '-q', '-m', 'modes');
      const listed = gitIn(v.dir, 'rev-list', '--objects', 'HEAD')
        .split('\n')
        .map((l) => l.split(' ')[0])
        .filter(Boolean);
      const objects = gitObjects(v.dir, listed);
      const trees = listed.filter((oid) => objects.get(oid)!.type === 'tree');
      const expected = async (oid: string) => (await git.readTree({ fs, gitdir: join(v.dir, '.git'), oid })).tree;
      for (const pass of ['loose', 'packed']) {
        if (pass === 'packed') gitIn(v.dir, 'gc', '-q', '--prune=now');
        const reader = new ObjectReader(v.vault.repo.gitdir);
        for (const oid of trees) expect(await reader.tree(oid), `${pass} ${oid}`).to.deep.equal(await expected(oid));
      }
      const modes = (await new ObjectReader(v.vault.repo.gitdir).tree(trees[0])).map((e) => e.mode);
      expect(modes).to.include.members(['100644', '120000', '040000']);
    } finally {
      v.cleanup();
    }
    const entry = (name: string) => Buffer.concat([Buffer.from(`100644 ${name}\0`), Buffer.alloc(20)]);
    for (const name of ['..', '.', '.git', '.GIT', '.git.', 'a/b', '']) expect(() => parseTree(entry(name)), name).to.throw();
    expect(parseTree(entry('.gitignore'))[0]).to.include({ path: '.gitignore', type: 'blob' });
    expect(() => parseTree(Buffer.from('100644 truncated\0abc'))).to.throw('malformed');
  });

  it('answers blobs the repo just wrote from memory, page-sized ones only and within its byte bound', async () => {
    v = await tempVault();
    // A reader of this repository, told of blobs that are nowhere in git: only memory can answer.
    const reader = new ObjectReader(v.vault.repo.gitdir);
    const fails = (read: Promise<unknown>) =>
      read.then(
        () => false,
        () => true,
      );
    const remembered = (bytes: Buffer) => {
      const oid = hashBlob(bytes);
      reader.remember(oid, bytes);
      return oid;
    };
    const page = Buffer.from('# Kept\n\nwritten just now\n');
    expect(Buffer.from(await reader.blob(remembered(page))).equals(page)).to.equal(true);
    // An attachment-sized blob is read from git, as is the oldest page once 4 MiB came after it.
    expect(await fails(reader.blob(remembered(randomBytes(300 << 10))))).to.equal(true);
    const first = remembered(randomBytes(200 << 10));
    expect(await fails(reader.blob(first))).to.equal(false);
    for (let i = 0; i < 20; i++) remembered(randomBytes(200 << 10));
    expect(await fails(reader.blob(first))).to.equal(true);
    // The repository's own writes are readable at once, before any flush, and after it from the pack.
    const oid = await v.vault.repo.writeBlob(page);
    expect(Buffer.from(await v.vault.repo.objects.blob(oid)).equals(page)).to.equal(true);
    await v.vault.repo.flushObjects();
    expect(Buffer.from(await new ObjectReader(v.vault.repo.gitdir).blob(oid)).equals(page)).to.equal(true);
  });
});
