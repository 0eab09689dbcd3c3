import { expect } from 'chai';
import { chmodSync, mkdirSync, rmSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { ObjectReader } from '../../../vault-store/git/object-reader.js';
import { TreeStore } from '../../../vault-store/git/tree-store.js';
import { RawTreeDiff } from '../../../vault-store/history/raw-tree-diff.js';
import { diffFiles } from '../../../vault-store/history/tree-diff.js';
import { tempDir } from '../../helpers/temp-dir.js';
import { gitIn } from '../../helpers/temp-vault.js';

describe('RawTreeDiff (the history build diffing raw trees)', () => {
  let dir: ReturnType<typeof tempDir>;
  afterEach(() => dir?.cleanup());

  const put = (path: string, text: string) => {
    mkdirSync(dirname(join(dir.path, path)), { recursive: true });
    writeFileSync(join(dir.path, path), text);
  };
  const commit = (message: string) => {
    gitIn(dir.path, 'add', '-A');
    gitIn(dir.path, '-c', 'user.name=t', '-c', 'user.email=t@x', 'commit', '-q', '--allow-empty', '-m', message);
    return gitIn(dir.path, 'rev-parse', 'HEAD^{tree}').trim();
  };

  it('finds the changes the parsed-tree diff finds, each with the blob it replaced, on awkward trees', async () => {
    dir = tempDir('quire-rawdiff-');
    gitIn(dir.path, 'init', '-q', '-b', 'main');
    // Names around git's tree order: `a` the folder sorts as `a/`, after `a-b` and `a.b`.
    for (const path of ['a.md', 'a-b/x.md', 'a/x.md', 'a.b', 'a0.md', '.hidden/h.md', 'deep/1/2/3.md', 'bin.sh']) put(path, `${path}\n`);
    for (let i = 0; i < 300; i++) put(`big/${String(i).padStart(3, '0')}.md`, `page ${i}\n`);
    symlinkSync('a.md', join(dir.path, 'link.md'));
    const trees = [commit('one')];

    put('a/x.md', 'changed\n');
    rmSync(join(dir.path, 'a0.md'));
    put('a.c.md', 'new\n');
    chmodSync(join(dir.path, 'bin.sh'), 0o755);
    rmSync(join(dir.path, 'deep/1'), { recursive: true });
    put('deep/1', 'a file where a folder was\n');
    put('.hidden/h.md', 'hidden change\n');
    unlinkSync(join(dir.path, 'link.md'));
    symlinkSync('a.b', join(dir.path, 'link.md'));
    put('big/150.md', 'middle\n');
    put('big/zzz.md', 'last\n');
    rmSync(join(dir.path, 'big/000.md'));
    trees.push(commit('two'));

    rmSync(join(dir.path, 'a.md'));
    symlinkSync('a.b', join(dir.path, 'a.md'));
    rmSync(join(dir.path, 'deep/1'));
    put('deep/1/again.md', 'a folder where a file was\n');
    gitIn(dir.path, 'update-index', '--add', '--cacheinfo', `160000,${'1'.repeat(40)},sub`);
    put('big/001.md', 'first\n');
    put('big/299.md', 'end\n');
    trees.push(commit('three'));

    for (const path of ['a-b', 'a', 'big', 'deep']) rmSync(join(dir.path, path), { recursive: true });
    trees.push(commit('four'));

    const objects = new ObjectReader(join(dir.path, '.git'));
    const parsed = new TreeStore(
      (oid) => objects.tree(oid),
      () => {
        throw new Error('this store only reads');
      },
    );
    const raw = new RawTreeDiff((oid) => objects.rawTree(oid), 4);
    const pairs: [string | null, string | null][] = [
      [null, trees[0]],
      [trees[3], null],
      [trees[0], trees[3]],
      [trees[3], trees[0]],
    ];
    for (let i = 1; i < trees.length; i++) pairs.push([trees[i - 1], trees[i]], [trees[i], trees[i - 1]]);
    for (const [before, after] of pairs) {
      const changes = await raw.diff(before, after);
      expect(changes.map(({ path, op, hash }) => ({ path, op, hash }))).to.deep.equal(await diffFiles(parsed, before, after));
      // What was there before: null for an add (a symbolic link it replaced is no file).
      for (const change of changes)
        expect(change.before, change.path).to.equal(change.op === 'add' ? null : await parsed.lookup(before!, change.path));
    }
    const two = await raw.diff(trees[0], trees[1]);
    expect(two.map((c) => `${c.op} ${c.path}`)).to.deep.equal([
      'add a.c.md',
      'modify a/x.md',
      'delete a0.md',
      'delete big/000.md',
      'modify big/150.md',
      'add big/zzz.md',
      'add deep/1',
      'delete deep/1/2/3.md',
    ]);
  });
});
