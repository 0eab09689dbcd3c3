import { expect } from 'chai';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { ObjectReader } from '../../../vault-store/git/object-reader.js';
import { PendingObjects } from '../../../vault-store/git/pending-objects.js';
import { TreeStore } from '../../../vault-store/git/tree-store.js';
import { gitIn, tempVault } from '../../helpers/temp-vault.js';

describe('TreeStore', () => {
  let v: Awaited<ReturnType<typeof tempVault>>;
  afterEach(() => v?.cleanup());

  /**
   * A vault holding a.md, a TreeStore over its objects (keeping at most `cap` bytes of trees),
   * a.md's blob, `flush`, which writes the trees stored so far into a pack git reads, and the
   * ids of the trees read from the repository so far (not from the store's cache).
   */
  async function storeIn(cap?: number) {
    v = await tempVault({ 'a.md': 'a' });
    const gitdir = join(v.dir, '.git');
    const pending = new PendingObjects();
    const objects = new ObjectReader(gitdir, pending);
    const reads: string[] = [];
    const trees = new TreeStore(
      (oid) => {
        reads.push(oid);
        return objects.tree(oid);
      },
      (body) => pending.add('tree', body),
      cap,
    );
    const flush = () => pending.flush(gitdir, objects);
    return { trees, blob: gitIn(v.dir, 'rev-parse', 'HEAD:a.md').trim(), flush, reads };
  }

  it('keeps its bound in bytes on writes as on reads, and what it wrote is what git reads', async () => {
    const cap = 1000; // a few one-entry trees
    const { trees, blob, flush } = await storeIn(cap);
    const written: string[] = [];
    for (let i = 0; i < 20; i++) {
      written.push(await trees.write([{ mode: '100644', path: `page-${i}.md`, oid: blob }]));
      expect(trees.cachedBytes).to.be.above(0).and.at.most(cap);
    }
    await trees.read(gitIn(v.dir, 'rev-parse', 'HEAD^{tree}').trim());
    expect(trees.cachedBytes).to.be.at.most(cap);
    await flush();
    expect(gitIn(v.dir, 'ls-tree', '--name-only', written[19]).trim()).to.equal('page-19.md');
  });

  it('drops the least recently used tree first', async () => {
    const { trees, blob, reads } = await storeIn(400); // two one-entry trees, not three
    const [a, b, c] = [0, 1, 2].map((i) =>
      execFileSync('git', ['mktree'], { cwd: v.dir, input: `100644 blob ${blob}\tp${i}.md\n` })
        .toString()
        .trim(),
    );
    for (const oid of [a, b, a, c, a, b]) await trees.read(oid);
    expect(reads).to.deep.equal([a, b, c, b]); // a, used again before c came, outlived b
  });

  it('keeps the last tree even when it alone is larger than the bound', async () => {
    const { trees, blob, reads } = await storeIn(1);
    const tree = await trees.write(Array.from({ length: 50 }, (_, i) => ({ mode: '100644', path: `page-${i}.md`, oid: blob })));
    expect(trees.cachedBytes).to.be.above(1);
    await trees.read(tree);
    expect(reads).to.deep.equal([]);
  });

  it("writes entries in git's order whatever order they come in: bytes of UTF-8, a folder as if it ended in /", async () => {
    const { trees, blob } = await storeIn();
    const folder = gitIn(v.dir, 'rev-parse', 'HEAD^{tree}').trim();
    // "a" the folder sorts after "a-b" and "a.md" ("/" is after "-" and "."), before "a0";
    // U+E000 sorts before an emoji (UTF-16 would put the emoji's surrogates first).
    const names = ['a0', 'a.md', '\u{1F600}.md', 'a-b', 'Z.md', '\uE000.md', 'é.md', 'a', 'ab', '~'];
    const entries = names.map((path) =>
      path === 'a'
        ? { mode: '040000', path, oid: folder, type: 'tree' as const }
        : { mode: '100644', path, oid: blob, type: 'blob' as const },
    );
    const listing = entries.map((e) => `${e.mode} ${e.type} ${e.oid}\t${e.path}\n`).join('');
    const byGit = execFileSync('git', ['mktree'], { cwd: v.dir, input: listing, encoding: 'utf8' }).trim();
    for (const order of [entries, [...entries].reverse(), [...entries].sort((x, y) => (x.oid + x.path < y.oid + y.path ? -1 : 1))]) {
      expect(await trees.write(order)).to.equal(byGit);
    }
    gitIn(v.dir, 'fsck', '--strict', '--no-dangling', byGit);
  });

  it('patches the ids of a tree it wrote into the same bytes a full write gives, and rewrites one whose entries change', async () => {
    const { trees, blob, flush } = await storeIn();
    const other = gitIn(v.dir, 'hash-object', '-w', '--stdin').trim();
    const pending = new PendingObjects();
    const objects = new ObjectReader(join(v.dir, '.git'), pending);
    // A second store keeps no bodies: it writes every tree in full.
    const fresh = new TreeStore(
      (oid) => objects.tree(oid),
      (body) => pending.add('tree', body),
    );
    const names = ['a-b.md', 'é.md', '\u{1F600}.md', 'z.md'];
    const sub = await trees.write([{ mode: '100644', path: 'in.md', oid: blob }]);
    const root = await trees.write([
      ...names.map((path) => ({ mode: '100644', path, oid: blob, type: 'blob' as const })),
      { mode: '040000', path: 'a', oid: sub, type: 'tree' as const },
      { mode: '100755', path: 'run.sh', oid: blob, type: 'blob' as const },
    ]);
    await flush();
    const cases = [
      [
        { path: 'é.md', oid: other },
        { path: 'a/in.md', oid: other },
      ],
      [{ path: '\u{1F600}.md', oid: other }],
      // Executable to plain, a new file, a file gone: whole rewrites.
      [{ path: 'run.sh', oid: other }],
      [
        { path: 'new.md', oid: other },
        { path: 'z.md', oid: null },
      ],
    ];
    for (const changes of cases) {
      const patched = await trees.apply(root, changes);
      expect(patched).to.equal(await fresh.apply(root, changes));
      expect(await trees.apply(patched, changes)).to.equal(patched);
      await flush();
      gitIn(v.dir, 'fsck', '--strict', '--no-dangling', patched);
    }
    const listing = gitIn(v.dir, '-c', 'core.quotepath=false', 'ls-tree', '-r', await trees.apply(root, cases[0]));
    expect(listing).to.include(`100644 blob ${other}\té.md`).and.include(`100644 blob ${other}\ta/in.md`);
  });
});
