import { expect } from 'chai';
import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { LockFile } from '../../vault-store/git/lock-file.js';
import { Vault } from '../../vault-store/vault.js';
import { Pages } from '../../vault-store/pages.js';
import { gitIn, testAuthor } from '../helpers/temp-vault.js';
import { builtScript } from '../helpers/built-script.js';
import { SOAK } from '../helpers/soak.js';
import { tempDir } from '../helpers/temp-dir.js';

/**
 * Runs the writer child (`writers` writing at once) until it has acknowledged `acks` writes,
 * then SIGKILLs it mid-stream. Returns the writes it acknowledged, and how it ended when it
 * ended by itself (its exit code or signal and what it wrote to stderr): once in CI a child
 * stopped after 16 of 40 writes and said nothing the log kept.
 */
function writeUntilKilled(dir: string, acks: number, writers = 1): Promise<{ acknowledged: string[]; ended?: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [builtScript('test/fixtures/crash-writer.ts'), dir, String(writers)], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    let killed = false;
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      // Once: a kill sent after the child is gone answers false.
      if (!killed && out.split('\n').length > acks) killed = child.kill('SIGKILL');
    });
    child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
    child.on('error', reject);
    // 'close', not 'exit': the child's output is all read by then.
    child.on('close', (code, signal) =>
      resolve({
        acknowledged: out.split('\n').filter((l) => l.includes(' ')),
        ended: killed ? undefined : `exit code ${code}, signal ${signal}, stderr: ${err.slice(-2000)}`,
      }),
    );
  });
}

/** Kills the writer child after each number of acknowledged writes in turn, checking the repository after each crash. */
async function crashRounds(writers: number): Promise<void> {
  const dir = tempDir();
  try {
    for (const acks of SOAK ? [15, 40, 3, 90, 27, 150, 8, 61, 120, 33] : [15, 40]) {
      const { acknowledged, ended } = await writeUntilKilled(dir.path, acks, writers);
      // In the message, not the value: chai cuts values shown in a failure to 40 characters.
      if (ended) expect.fail(`the writer ended by itself after ${acknowledged.length} of ${acks} writes: ${ended}`);
      expect(acknowledged.length).to.be.at.least(acks);
      gitIn(dir.path, 'fsck', '--strict', '--no-dangling');
      // Whole commits only: each made by one write, of one page.
      for (const files of gitIn(dir.path, 'log', '--format=tformat:@', '--name-only', '--author=crash').split('@').slice(1)) {
        expect(files.trim().split('\n')).to.have.length(1);
      }
      const vault = await Vault.open(dir.path);
      for (const line of acknowledged) {
        const [path, hash] = line.split(' ');
        expect(vault.manifest.get(path)?.oid, path).to.equal(hash);
      }
    }
  } finally {
    dir.cleanup();
  }
}

describe('durability', () => {
  it('never loses an acknowledged write and passes git fsck after being killed mid-write', async function () {
    this.timeout(SOAK ? 300_000 : 60_000);
    await crashRounds(1);
  });

  it('leaves only whole commits and every acknowledged write when killed amid group commits of 8 writers', async function () {
    this.timeout(SOAK ? 300_000 : 60_000);
    await crashRounds(8);
  });

  it('removes a branch lock it left in a crash, and never one git holds', async () => {
    const dir = tempDir();
    try {
      await new Pages(await Vault.open(dir.path)).write(testAuthor, { path: 'a.md', content: 'one' });
      // Our own lock, abandoned as a crash would: the next open takes it away.
      await LockFile.acquire(join(dir.path, '.git'), 'refs/heads/main');
      const pages = new Pages(await Vault.open(dir.path));
      await pages.write(testAuthor, { path: 'a.md', content: 'two' });
      gitIn(dir.path, 'update-ref', 'refs/heads/probe', 'main'); // real git can take the lock again
      expect(gitIn(dir.path, 'show', 'main:a.md')).to.equal('two');

      // A lock with no marker is git's: a write waits, then answers VAULT_BUSY and leaves it.
      writeFileSync(join(dir.path, '.git/refs/heads/main.lock'), 'held by git');
      const reopened = new Pages(await Vault.open(dir.path, { lockWaitMs: 100 }));
      const err = await reopened.write(testAuthor, { path: 'a.md', content: 'three' }).catch((e: unknown) => e);
      expect(err).to.have.property('code', 'VAULT_BUSY');
      expect((err as Error).message).to.match(/git holds \.git\/refs\/heads\/main\.lock/);
      expect(readFileSync(join(dir.path, '.git/refs/heads/main.lock'), 'utf8')).to.equal('held by git');
      expect(gitIn(dir.path, 'show', 'main:a.md')).to.equal('two');
      expect(readFileSync(join(dir.path, 'a.md'), 'utf8')).to.equal('two');
    } finally {
      dir.cleanup();
    }
  });
});
