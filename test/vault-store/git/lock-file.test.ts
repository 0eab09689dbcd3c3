import { expect } from 'chai';
import fs, { existsSync, linkSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';
import { join } from 'node:path';
import { LockFile } from '../../../vault-store/git/lock-file.js';
import { markedFile, removeOwnStaleLocks } from '../../../vault-store/git/lock-marks.js';
import { tempDir } from '../../helpers/temp-dir.js';

/**
 * The states a SIGKILL can leave at each step of taking a lock, made with the steps
 * themselves: after a crash the server removes exactly its own lock, never git's. (The
 * crash test in durability.test.ts kills a real writer at random points; 3 of ~1,100 kills
 * landed between creating a lock and noting it when the note came second.)
 */
describe('git lock files after a crash', () => {
  let dir: ReturnType<typeof tempDir>;
  let gitdir: string;
  const lock = () => join(gitdir, 'index.lock');
  const leftovers = () => readdirSync(join(gitdir, 'quire-locks')).filter((name) => name !== 'index');
  beforeEach(() => {
    dir = tempDir();
    gitdir = join(dir.path, '.git');
    mkdirSync(gitdir);
  });
  afterEach(() => dir.cleanup());

  it('keeps a lock git made after the server noted a file it never linked', async () => {
    markedFile(gitdir, 'index'); // killed here, before the link
    writeFileSync(lock(), 'git');
    await removeOwnStaleLocks(gitdir);
    expect(readFileSync(lock(), 'utf8')).to.equal('git');
    expect(leftovers()).to.deep.equal([]);
  });

  it('removes its lock when killed between linking it and removing the second name', async () => {
    const fresh = markedFile(gitdir, 'index');
    linkSync(fresh.path, lock()); // killed here
    await removeOwnStaleLocks(gitdir);
    expect(existsSync(lock())).to.equal(false);
    expect(leftovers()).to.deep.equal([]);
  });

  it('removes a lock it holds when killed, and then takes it again at once', async () => {
    await LockFile.acquire(gitdir, 'index'); // never released: killed
    expect(readdirSync(join(gitdir, 'quire-locks', 'new'))).to.deep.equal([]);
    await removeOwnStaleLocks(gitdir);
    expect(existsSync(lock())).to.equal(false);
    await (await LockFile.acquire(gitdir, 'index', { waitMs: 0 })).commit('new index');
    expect(readFileSync(join(gitdir, 'index'), 'utf8')).to.equal('new index');
  });

  it('takes the lock when an open of the repository clears its noted file while it waits for git', async () => {
    writeFileSync(lock(), 'git');
    const taking = LockFile.acquire(gitdir, 'index', { waitMs: 2_000 });
    await new Promise((resolve) => setTimeout(resolve, 20));
    await removeOwnStaleLocks(gitdir); // another open: git's lock stays, our waiting file goes
    expect(readFileSync(lock(), 'utf8')).to.equal('git');
    fs.rmSync(lock());
    const taken = await taking;
    // Noted as ours: a crash now would leave nothing behind.
    await removeOwnStaleLocks(gitdir);
    expect(existsSync(lock())).to.equal(false);
    await taken.release();
  });

  describe('on a file system without hard links (FAT, some network mounts)', () => {
    const link = fs.linkSync;
    let links = 0;
    before(() => {
      fs.linkSync = () => {
        links++;
        throw Object.assign(new Error('EPERM: operation not permitted, link'), { code: 'EPERM' });
      };
      syncBuiltinESMExports();
    });
    after(() => {
      fs.linkSync = link;
      syncBuiltinESMExports();
    });

    it('creates the lock, notes it, waits for git, and removes only its own after a crash', async () => {
      writeFileSync(lock(), 'git');
      const err = await LockFile.acquire(gitdir, 'index', { waitMs: 50 }).catch((e: unknown) => e);
      expect(err).to.have.property('code', 'VAULT_BUSY');
      expect(links, 'links tried').to.be.greaterThan(0);
      await removeOwnStaleLocks(gitdir);
      expect(readFileSync(lock(), 'utf8')).to.equal('git');

      fs.rmSync(lock());
      await LockFile.acquire(gitdir, 'index'); // killed while holding it
      expect(readdirSync(join(gitdir, 'quire-locks', 'new'))).to.deep.equal([]);
      await removeOwnStaleLocks(gitdir);
      expect(existsSync(lock())).to.equal(false);
    });
  });
});
