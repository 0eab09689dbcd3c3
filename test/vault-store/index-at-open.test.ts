import { expect } from 'chai';
import { spawn } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { IndexEntry } from '../../vault-store/git/index-record.js';
import { Pages } from '../../vault-store/pages.js';
import { Vault } from '../../vault-store/vault.js';
import { builtScript } from '../helpers/built-script.js';
import { indexEntriesOf } from '../helpers/index-entries.js';
import { tempDir } from '../helpers/temp-dir.js';
import { gitIn, testAuthor } from '../helpers/temp-vault.js';

/** Runs the writer child until it stalls at the `stallAt`-th index write, then SIGKILLs it; returns the writes it acknowledged. */
function killAtIndexWrite(dir: string, stallAt: number): Promise<string[]> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [builtScript('test/fixtures/crash-index-writer.ts'), dir, '1', String(stallAt)], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      if (out.includes('stalled\n')) child.kill('SIGKILL');
    });
    child.on('error', reject);
    child.on('exit', () => resolve(out.split('\n').filter((l) => l.includes(' '))));
  });
}

function indexEntries(dir: string): Map<string, IndexEntry> {
  return new Map(indexEntriesOf(readFileSync(join(dir, '.git/index'))).map((e) => [e.path, e]));
}

describe('.git/index at open', () => {
  let dir: ReturnType<typeof tempDir>;
  beforeEach(() => void (dir = tempDir()));
  afterEach(() => dir.cleanup());

  it('is brought to HEAD after kill -9 between moving the branch and writing the index, keeping the other entries', async function () {
    this.timeout(30_000);
    const acknowledged = await killAtIndexWrite(dir.path, 6);
    expect(acknowledged).to.have.length(4);
    // The kill landed in the window: HEAD holds the fifth page, the index does not.
    const behind = gitIn(dir.path, 'diff-index', '--cached', '--name-status', 'HEAD');
    expect(behind).to.match(/^D\tcrash\/p4\/n4\.md\n$/);
    const before = indexEntries(dir.path);

    const vault = await reopenedClean(dir.path, acknowledged);
    // Entries the crash did not touch keep their stat data (git trusts them without re-reading
    // the files); the missing one has the working file's, not zeros.
    const after = indexEntries(dir.path);
    for (const [path, entry] of before) expect(after.get(path), path).to.deep.equal(entry);
    expect(after.get('crash/p4/n4.md')?.stat.size).to.equal(Buffer.byteLength('write 4\n'.repeat(20)));

    await new Pages(vault).write(testAuthor, { path: 'after.md', content: 'after the crash\n' });
    expect(gitIn(dir.path, 'status', '--porcelain')).to.equal('');
  });

  it('leaves an index git wrote since alone, though it differs from HEAD (what the user staged)', async () => {
    await new Pages(await Vault.open(dir.path)).write(testAuthor, { path: 'a.md', content: 'a\n' });
    gitIn(dir.path, 'rm', '--cached', '-q', 'a.md');
    await Vault.open(dir.path);
    expect(gitIn(dir.path, 'status', '--porcelain')).to.equal('D  a.md\n?? a.md\n');
  });

  it('builds a missing index from HEAD, so git status is clean before the first write', async () => {
    await new Pages(await Vault.open(dir.path)).write(testAuthor, { path: 'notes/b.md', content: 'b\n' });
    rmSync(join(dir.path, '.git/index'));
    await Vault.open(dir.path);
    expect(gitIn(dir.path, 'status', '--porcelain')).to.equal('');
  });
});

/** The vault reopened after a crash: `git status` clean, `fsck --strict` passing, every acknowledged write ("path hash") there. */
async function reopenedClean(path: string, acknowledged: string[]): Promise<Vault> {
  const vault = await Vault.open(path);
  expect(gitIn(path, 'status', '--porcelain')).to.equal('');
  gitIn(path, 'fsck', '--strict', '--no-dangling');
  for (const line of acknowledged) {
    const [file, hash] = line.split(' ');
    expect(vault.manifest.get(file)?.oid, file).to.equal(hash);
  }
  return vault;
}
