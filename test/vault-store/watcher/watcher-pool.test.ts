import { expect } from 'chai';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Vault } from '../../../vault-store/vault.js';
import { WatcherPool } from '../../../vault-store/watcher/watcher-pool.js';
import { tempVault } from '../../helpers/temp-vault.js';
import { historyOf, waitFor } from './helpers.js';

type TempVault = Awaited<ReturnType<typeof tempVault>>;

describe('WatcherPool', () => {
  let vaults: TempVault[];
  let pool: WatcherPool;

  beforeEach(async () => {
    vaults = [await tempVault({ 'a.md': '# A\n' }), await tempVault({ 'b.md': '# B\n' })];
  });
  afterEach(async () => {
    await pool.closeAll();
    for (const t of vaults) t.cleanup();
  });

  it('starts a watcher on first use only, and it commits external edits', async () => {
    pool = new WatcherPool({ quietMs: 50, stabilityMs: 20 });
    const [first, second] = vaults;
    pool.touch('alice', first.vault);
    pool.touch('alice', first.vault);
    const watcher = await pool.get('alice');

    expect(pool.keys()).to.deep.equal(['alice']);
    expect(watcher!.state().watching).to.equal(true);
    writeFileSync(join(first.dir, 'a.md'), '# A edited\n');
    await waitFor('the external commit', () => (historyOf(first.dir)[0].startsWith('external|') ? true : undefined));
    expect(historyOf(second.dir)[0], 'an unwatched vault gets no commit').to.equal('key:test|Update b.md');
  });

  it('closes a watcher left idle, and a later touch starts a new one that catches up', async () => {
    pool = new WatcherPool({ quietMs: 50, stabilityMs: 20, idleMs: 150 });
    const [t] = vaults;
    pool.touch('alice', t.vault);
    const first = await pool.get('alice');

    await waitFor('the idle close', () => (pool.keys().length === 0 ? true : undefined));
    await waitFor('the watcher to stop', () => (first!.state().watching ? undefined : true));
    writeFileSync(join(t.dir, 'a.md'), '# A edited while unwatched\n');
    pool.touch('alice', t.vault);
    const second = await pool.get('alice');

    expect(second).to.not.equal(first);
    expect(historyOf(t.dir)[0]).to.equal('external|External edit of a.md');
  });

  it('keeps a watcher that is touched before it goes idle', async () => {
    pool = new WatcherPool({ idleMs: 200 });
    const [t] = vaults;
    pool.touch('alice', t.vault);
    for (let i = 0; i < 4; i++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      pool.touch('alice', t.vault);
    }
    expect(pool.keys()).to.deep.equal(['alice']);
  });

  it('replaces the watcher when the key comes back with a reopened vault', async () => {
    pool = new WatcherPool();
    const [t] = vaults;
    pool.touch('alice', t.vault);
    const first = await pool.get('alice');
    const reopened = await Vault.open(t.dir);

    pool.touch('alice', reopened);
    const second = await pool.get('alice');

    expect(second!.vault).to.equal(reopened);
    await waitFor('the old watcher to stop', () => (first!.state().watching ? undefined : true));
  });

  it('closes every watcher on closeAll', async () => {
    pool = new WatcherPool();
    pool.touch('alice', vaults[0].vault);
    pool.touch('bob', vaults[1].vault);
    const watchers = await Promise.all([pool.get('alice'), pool.get('bob')]);

    await pool.closeAll();

    expect(pool.keys()).to.deep.equal([]);
    expect(watchers.map((w) => w!.state().watching)).to.deep.equal([false, false]);
  });
});
