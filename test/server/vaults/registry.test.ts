import { setTimeout as sleep } from 'node:timers/promises';
import { expect } from 'chai';
import { VaultRegistry } from '../../../server/vaults/user-vault.js';
import { testAuthor } from '../../helpers/temp-vault.js';
import { tempDir } from '../../helpers/temp-dir.js';
import { until } from '../../helpers/until.js';

describe('VaultRegistry leases and eviction', function () {
  this.timeout(30_000);
  let dir: ReturnType<typeof tempDir>;
  let vaults: VaultRegistry;
  beforeEach(() => {
    dir = tempDir('quire-registry-');
    vaults = new VaultRegistry(dir.path, { watch: false, memoryBudgetBytes: 1 });
  });
  afterEach(async () => {
    await vaults.close();
    dir.cleanup();
  });

  it('never closes a vault while a lease holds it, and closes it once released and others are used', async () => {
    const held = await vaults.acquire('ann');
    await vaults.get('bob');
    await vaults.get('cid');
    expect(vaults.loadedWorkspace('ann'), 'held through other vaults opening').to.equal(held.workspace);
    await held.workspace.pages.write(testAuthor, { path: 'held.md', content: 'still open\n' });
    held.release();
    await vaults.get('bob');
    expect(vaults.loadedWorkspace('ann'), 'closed once released').to.equal(undefined);
    expect(vaults.memory()).to.include({ loaded: 1, evictions: 3 });
  });

  it('hands a request arriving after an eviction a fresh workspace that has every write', async () => {
    const first = await vaults.get('ann');
    const write = vaults.use('ann', (workspace) => workspace.pages.write(testAuthor, { path: 'a.md', content: 'one\n' }));
    const other = vaults.get('bob');
    await Promise.all([write, other]);
    const again = await vaults.acquire('ann');
    expect(again.workspace).not.to.equal(first);
    expect((await again.workspace.pages.read('a.md')).content).to.equal('one\n');
    expect(again.workspace.knowledge.indexedCommit).to.equal(again.workspace.head);
    again.release();
  });

  it('reopens only after the close: a write queued when the vault was evicted is in the fresh workspace', async () => {
    const old = await vaults.get('ann');
    // Not a leased use (as a watcher's commit is not): the queue is busy when the eviction comes.
    const blocker = old.vault.exclusive(() => sleep(300));
    const queued = old.pages.write(testAuthor, { path: 'queued.md', content: 'queued\n' });
    await vaults.get('bob');
    expect(vaults.loadedWorkspace('ann'), 'evicted with its queue busy').to.equal(undefined);
    const fresh = await vaults.acquire('ann');
    expect(fresh.workspace.hasFile('queued.md')).to.equal(true);
    expect(fresh.workspace.head).to.equal((await queued).commit);
    fresh.release();
    await blocker;
  });

  it('keeps commit listeners across a close and reopen, without keeping the vault loaded', async () => {
    const heard: string[] = [];
    const stop = vaults.onCommit('ann', (event) => void heard.push(...event.changes.map((c) => c.path)));
    await vaults.use('ann', (w) => w.pages.write(testAuthor, { path: 'before.md', content: 'x\n' }));
    await vaults.get('bob');
    expect(vaults.loadedWorkspace('ann')).to.equal(undefined);
    await vaults.use('ann', (w) => w.pages.write(testAuthor, { path: 'after.md', content: 'x\n' }));
    expect(heard).to.deep.equal(['before.md', 'after.md']);
    stop();
    expect(vaults.commitListenerCount('ann')).to.equal(0);
  });

  it('makes room for a vault before it opens, counting it at the size it had when last closed', async () => {
    await vaults.get('ann');
    await vaults.get('bob');
    expect(vaults.loadedWorkspace('ann'), 'closed for bob').to.equal(undefined);
    const reopening = vaults.acquire('ann');
    expect(vaults.loadedWorkspace('bob'), 'closed as soon as ann was asked for, not once ann was open').to.equal(undefined);
    const lease = await reopening;
    expect(vaults.memory().bytes, 'ann measured once open').to.be.greaterThan(0);
    lease.release();
  });

  it('closes a vault unused for the idle time, and not one in use', async () => {
    await vaults.close();
    vaults = new VaultRegistry(dir.path, { watch: false, idleMs: 150 });
    const held = await vaults.acquire('ann');
    await vaults.get('bob');
    await until('bob closed for idleness', 3000, () => vaults.loadedWorkspace('bob') === undefined);
    expect(vaults.loadedWorkspace('ann'), 'held past the idle time').to.equal(held.workspace);
    held.release();
    await until('ann closed once unused', 3000, () => vaults.loadedWorkspace('ann') === undefined);
  });
});
