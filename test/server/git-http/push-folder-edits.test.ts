import { expect } from 'chai';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gitIn } from '../../helpers/temp-vault.js';
import { pushSetupPerTest } from './push-setup.js';

describe('git push with uncommitted edits in the vault folder (the folder not watched)', function () {
  this.timeout(60_000);
  const p = pushSetupPerTest({ QUIRE_WATCH: 'false' });

  it('refuses a push changing a file edited in the folder, with a clear message; other edits do not matter', async () => {
    writeFileSync(join(p.vaultDir, 'notes/a.md'), 'edited in the folder');
    writeFileSync(join(p.vaultDir, 'notes/local.md'), 'new in the folder');
    const before = p.head();
    await p.commitFile('notes/a.md', 'alpha from the laptop');
    const refused = await p.push('HEAD:main');
    expect(refused.status).to.not.equal(0);
    expect(refused.stderr).to.include('Quire: the vault folder has uncommitted edits to files this push changes');
    expect(p.head()).to.equal(before);
    expect(readFileSync(join(p.vaultDir, 'notes/a.md'), 'utf8')).to.equal('edited in the folder');

    // A push of other files goes through and leaves the folder's edits alone.
    gitIn(p.client, 'reset', '-q', '--hard', 'HEAD~1');
    await p.commitFile('notes/c.md', 'charlie');
    const pushed = await p.push('HEAD:main');
    expect(pushed.status, pushed.stderr).to.equal(0);
    expect(readFileSync(join(p.vaultDir, 'notes/c.md'), 'utf8')).to.equal('charlie');
    expect(readFileSync(join(p.vaultDir, 'notes/a.md'), 'utf8')).to.equal('edited in the folder');
    expect(readFileSync(join(p.vaultDir, 'notes/local.md'), 'utf8')).to.equal('new in the folder');
    expect(gitIn(p.vaultDir, 'status', '--porcelain').split('\n').filter(Boolean).sort()).to.deep.equal([
      ' M notes/a.md',
      '?? notes/local.md',
    ]);
  });

  it('answers 503 with Retry-After while a merge is under way in the folder, and takes the push once it ends', async () => {
    await p.commitFile('notes/b.md', 'bravo');
    const before = p.head();
    writeFileSync(join(p.vaultDir, '.git', 'MERGE_HEAD'), `${before}\n`);
    const refused = await p.push('HEAD:main');
    expect(refused.status).to.not.equal(0);
    expect(refused.stderr).to.match(/503/);
    const res = await fetch(`${p.server.url}/vault.git/git-receive-pack`, {
      method: 'POST',
      headers: { authorization: `Bearer ${p.key}` },
      body: '0000',
    });
    expect(res.status).to.equal(503);
    expect(res.headers.get('retry-after')).to.match(/^\d+$/);
    expect(await res.text()).to.match(/merge is in progress/);
    expect(p.head()).to.equal(before);
    rmSync(join(p.vaultDir, '.git', 'MERGE_HEAD'));
    const pushed = await p.push('HEAD:main');
    expect(pushed.status, pushed.stderr).to.equal(0);
  });

  it('refuses a push adding a file where an uncommitted one stands in the folder', async () => {
    writeFileSync(join(p.vaultDir, 'notes/b.md'), 'mine, not committed yet');
    const before = p.head();
    await p.commitFile('notes/b.md', 'theirs');
    const refused = await p.push('HEAD:main');
    expect(refused.stderr).to.include('Quire: the vault folder has uncommitted edits');
    expect(p.head()).to.equal(before);
    expect(readFileSync(join(p.vaultDir, 'notes/b.md'), 'utf8')).to.equal('mine, not committed yet');
  });
});
