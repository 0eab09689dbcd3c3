import { expect } from 'chai';
import { gitIn, tempVault } from '../../helpers/temp-vault.js';

describe('GitRepo', () => {
  let v: Awaited<ReturnType<typeof tempVault>>;
  afterEach(() => v?.cleanup());

  it('finds ancestors through every parent of a merge, as git merge-base --is-ancestor does', async () => {
    v = await tempVault({ 'a.md': 'a' });
    const git = (...args: string[]) => gitIn(v.dir, '-c', 'user.name=t', '-c', 'user.email=t@x', ...args).trim();
    // Plumbing only: the server keeps no .git/index, so porcelain like checkout would refuse.
    const commit = (message: string, ...parents: string[]) =>
      git('commit-tree', 'HEAD^{tree}', '-m', message, ...parents.flatMap((p) => ['-p', p]));
    const side = commit('on the side', 'HEAD');
    const main = commit('on main', 'HEAD');
    const merge = commit('merge', main, side);
    const root = git('rev-list', '--max-parents=0', 'HEAD');
    for (const [oid, head, expected] of [
      [side, merge, true],
      [main, merge, true],
      [root, merge, true],
      [merge, merge, true],
      [side, main, false],
      [merge, side, false],
    ] as const) {
      expect(await v.vault.repo.isAncestor(oid, head), `${oid} of ${head}`).to.equal(expected);
    }
    expect(await v.vault.repo.isAncestor('0'.repeat(40), merge), 'an id not in the repo').to.equal(false);
    expect(await v.vault.repo.isAncestor(root, '0'.repeat(40)), 'a head not in the repo').to.equal(false);
  });

  it('resolves and lists refs that git pack-refs (as git gc runs it) moved into packed-refs', async () => {
    v = await tempVault({ 'a.md': 'a' });
    const head = v.vault.head;
    gitIn(v.dir, 'update-ref', 'refs/quire/test/one', head);
    gitIn(v.dir, 'pack-refs', '--all');
    expect(await v.vault.repo.resolveRef('refs/quire/test/one')).to.equal(head);
    expect(await v.vault.repo.head()).to.equal(head);
    expect(await v.vault.repo.listRefs('refs/quire/test')).to.deep.equal(['one']);
    expect(await v.vault.repo.resolveRef('refs/quire/test/none')).to.equal(undefined);
  });
});
