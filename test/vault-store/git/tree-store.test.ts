import { expect } from 'chai';
import { join } from 'node:path';
import { ObjectReader } from '../../../vault-store/git/object-reader.js';
import { TreeStore } from '../../../vault-store/git/tree-store.js';
import { gitIn, tempVault } from '../../helpers/temp-vault.js';

describe('TreeStore', () => {
  let v: Awaited<ReturnType<typeof tempVault>>;
  afterEach(() => v?.cleanup());

  it('keeps its bound on writes as on reads, and what it wrote is what git reads', async () => {
    v = await tempVault({ 'a.md': 'a' });
    const gitdir = join(v.dir, '.git');
    const objects = new ObjectReader(gitdir);
    const trees = new TreeStore(
      (oid) => objects.tree(oid),
      gitdir,
      () => undefined,
      3,
    );
    const blob = gitIn(v.dir, 'rev-parse', 'HEAD:a.md').trim();
    const written: string[] = [];
    for (let i = 0; i < 10; i++) {
      written.push(await trees.write([{ mode: '100644', path: `page-${i}.md`, oid: blob }]));
      expect(trees.cached).to.be.at.most(3);
    }
    await trees.read(gitIn(v.dir, 'rev-parse', 'HEAD^{tree}').trim());
    expect(trees.cached).to.equal(3);
    expect(gitIn(v.dir, 'ls-tree', '--name-only', written[9]).trim()).to.equal('page-9.md');
  });
});
