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
   * A vault holding a.md, a TreeStore over its objects (caching at most `cap` trees), a.md's
   * blob, and `flush`, which writes the trees stored so far into a pack git reads.
   */
  async function storeIn(cap?: number) {
    v = await tempVault({ 'a.md': 'a' });
    const gitdir = join(v.dir, '.git');
    const pending = new PendingObjects();
    const objects = new ObjectReader(gitdir, pending);
    const trees = new TreeStore(
      (oid) => objects.tree(oid),
      (body) => pending.add('tree', body),
      cap,
    );
    const flush = () => pending.flush(gitdir, objects);
    return { trees, blob: gitIn(v.dir, 'rev-parse', 'HEAD:a.md').trim(), flush };
  }

  it('keeps its bound on writes as on reads, and what it wrote is what git reads', async () => {
    const { trees, blob, flush } = await storeIn(3);
    const written: string[] = [];
    for (let i = 0; i < 10; i++) {
      written.push(await trees.write([{ mode: '100644', path: `page-${i}.md`, oid: blob }]));
      expect(trees.cached).to.be.at.most(3);
    }
    await trees.read(gitIn(v.dir, 'rev-parse', 'HEAD^{tree}').trim());
    expect(trees.cached).to.equal(3);
    await flush();
    expect(gitIn(v.dir, 'ls-tree', '--name-only', written[9]).trim()).to.equal('page-9.md');
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
