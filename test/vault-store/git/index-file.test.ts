import { expect } from 'chai';
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, existsSync, lstatSync, mkdirSync, readFileSync, rmSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { GitIndex, entryFromStat, type IndexChange } from '../../../vault-store/git/index-file.js';
import { IndexFileError, serializeIndex } from '../../../vault-store/git/index-format.js';
import { isQuireError } from '../../../vault-store/errors.js';
import { indexEntriesOf } from '../../helpers/index-entries.js';
import { tempDir } from '../../helpers/temp-dir.js';

const GIT_ENV = { GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@x', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@x' };

function git(dir: string, args: string[], env: Record<string, string> = {}): string {
  return execFileSync('git', ['-c', 'core.quotepath=false', ...args], {
    cwd: dir,
    encoding: 'utf8',
    env: { ...process.env, ...GIT_ENV, ...env },
  });
}

/** Several git commands in one spawn (forking this big test process costs more than git itself); `$1`… are `args`. */
function sh(dir: string, script: string, args: string[] = [], options: { env?: Record<string, string>; input?: string } = {}): string {
  const env = { ...process.env, ...GIT_ENV, ...options.env };
  return execFileSync('sh', ['-ec', script, 'sh', ...args], { cwd: dir, encoding: 'utf8', env, input: options.input });
}

/** `git ls-files --stage` as [mode, oid, stage, path] tuples. */
function lsStage(dir: string): string[][] {
  return git(dir, ['ls-files', '--stage', '-z'])
    .split('\0')
    .filter(Boolean)
    .map((line) => {
      const [info, path] = line.split('\t');
      return [...info.split(' '), path];
    });
}

function parsedStage(dir: string, gitdir?: string): string[][] {
  return indexEntriesOf(readFileSync(join(dir, '.git/index')), gitdir).map((e) => [
    e.mode.toString(8).padStart(6, '0'),
    e.oid,
    String(e.stage),
    e.path,
  ]);
}

function put(dir: string, path: string, content: string): void {
  mkdirSync(dirname(join(dir, path)), { recursive: true });
  writeFileSync(join(dir, path), content);
}

/** Clean by git's own reading: stat data that matches (diff-files does not refresh), nothing staged, nothing changed. */
function isClean(dir: string): void {
  expect(sh(dir, 'git diff-files --quiet; git status --porcelain')).to.equal(''); // diff-files exits 1 (throws) on a difference
}

/**
 * What the server does: working files and loose objects written, a commit made with plumbing
 * (through its own index file, so .git/index is untouched), the branch moved. Returns the changes.
 */
async function serverCommit(dir: string, files: Record<string, string | null>): Promise<IndexChange[]> {
  const env = { GIT_INDEX_FILE: join(dir, '.git/server-index') };
  const changes: IndexChange[] = Object.keys(files).map((path) => ({ path, oid: null }));
  for (const { path } of changes) if (files[path] === null) rmSync(join(dir, path), { force: true, recursive: true });
  const written = Object.keys(files).filter((path) => files[path] !== null);
  for (const path of written) put(dir, path, files[path]!);
  const oids = written.length
    ? git(dir, ['hash-object', '-w', '--', ...written])
        .trim()
        .split('\n')
    : [];
  for (const change of changes)
    if (files[change.path] !== null) Object.assign(change, { oid: oids[written.indexOf(change.path)], mode: 0o100644 });
  const info = changes.map((c) => (c.oid ? `100644 ${c.oid}\t${c.path}\n` : `0 ${'0'.repeat(40)}\t${c.path}\n`)).join('');
  const commit = sh(dir, 'git update-index --index-info; git commit-tree "$(git write-tree)" -p HEAD -m "server write"', [], {
    env,
    input: info,
  }).trim();
  writeFileSync(join(dir, '.git/refs/heads/main'), `${commit}\n`);
  return changes;
}

describe('git index file', () => {
  // One seed repository: read in place by the tests that only read, copied for the others
  // (git init and commit cost more than most of the tests).
  let seed: string;
  const cleanups: (() => void)[] = [];
  before(() => {
    const made = tempDir('quire-index-seed-');
    cleanups.push(made.cleanup);
    seed = made.path;
    git(seed, ['init', '-q', '--template=', '-b', 'main']);
    put(seed, 'a.md', 'a');
    put(seed, 'notes/b.md', 'b');
    put(seed, 'café/été.md', 'non-ascii');
    put(seed, 'run.sh', '#!/bin/sh\n');
    chmodSync(join(seed, 'run.sh'), 0o755);
    symlinkSync('a.md', join(seed, 'link.md'));
    // Packed, so a copy makes a few folders rather than one per loose object (mkdir is slow here).
    sh(seed, 'git add -A && git commit -q -m seed && git repack -adq && GIT_INDEX_FILE=.git/server-index git read-tree HEAD');
  });
  after(() => cleanups.forEach((cleanup) => cleanup()));

  function copyOfSeed(): string {
    const made = tempDir('quire-index-');
    cleanups.push(made.cleanup);
    // node's cpSync takes ~70 ms here; the refresh because the copies have new inodes and times
    sh(made.path, 'cp -a "$1/." . && git update-index -q --refresh', [seed]);
    return made.path;
  }

  it('parses a version 2 index written by git, as git ls-files --stage lists it', () => {
    expect(readFileSync(join(seed, '.git/index')).readUInt32BE(4)).to.equal(2);
    expect(parsedStage(seed)).to.deep.equal(lsStage(seed));
    expect(parsedStage(seed).map((e) => e[0])).to.include.members(['100755', '120000', '100644']);
  });

  it('parses a version 4 index (path prefix compression) and updates it as version 2', async () => {
    const dir = copyOfSeed();
    git(dir, ['update-index', '--index-version', '4']);
    const buf = readFileSync(join(dir, '.git/index'));
    expect(buf.readUInt32BE(4)).to.equal(4);
    expect(parsedStage(dir)).to.deep.equal(lsStage(dir));
    await new GitIndex({ gitdir: join(dir, '.git') }).update(await serverCommit(dir, { 'notes/c.md': 'c' }), dir);
    expect(readFileSync(join(dir, '.git/index')).readUInt32BE(4)).to.equal(2);
    isClean(dir);
  });

  it('drops optional extensions (TREE, UNTR) and round-trips to an index git reads as the same', () => {
    const dir = copyOfSeed();
    sh(dir, 'git write-tree; git -c core.untrackedCache=true status --porcelain');
    const before = readFileSync(join(dir, '.git/index'));
    expect(before.includes('TREE')).to.equal(true);
    expect(before.includes('UNTR')).to.equal(true);
    const listed = lsStage(dir);
    expect(parsedStage(dir)).to.deep.equal(listed);
    writeFileSync(join(dir, '.git/index'), serializeIndex(indexEntriesOf(before)));
    expect(lsStage(dir)).to.deep.equal(listed);
    isClean(dir);
  });

  it('round-trips conflict stages and extended flags (skip-worktree, intent-to-add) as version 3', () => {
    const dir = copyOfSeed();
    put(dir, 'new.md', 'n');
    const script = `b=$(git rev-parse HEAD:a.md)
      printf '100644 %s 1\\tc.md\\n100644 %s 2\\tc.md\\n100644 %s 3\\tc.md\\n' $b $b $b | git update-index --index-info
      git update-index --skip-worktree notes/b.md
      git add -N new.md
      git ls-files -v -t`;
    const flags = sh(dir, script);
    expect(flags)
      .to.match(/^M c\.md$/m)
      .and.match(/^S notes\/b\.md$/m);
    const listed = lsStage(dir);
    const out = serializeIndex(indexEntriesOf(readFileSync(join(dir, '.git/index'))).reverse());
    expect(out.readUInt32BE(4)).to.equal(3);
    writeFileSync(join(dir, '.git/index'), out);
    expect(lsStage(dir)).to.deep.equal(listed);
    expect(sh(dir, 'git fsck --no-dangling --no-progress; git ls-files -v -t')).to.equal(flags);
  });

  it('updates a version 3 index in place: a written path replaces its conflict stages, other entries keep their extended flags', async () => {
    const dir = copyOfSeed();
    const script = `b=$(git rev-parse HEAD:a.md)
      printf '100644 %s 1\\tc.md\\n100644 %s 2\\tc.md\\n100644 %s 3\\tc.md\\n' $b $b $b | git update-index --index-info
      git update-index --skip-worktree notes/b.md`;
    sh(dir, script);
    const index = new GitIndex({ gitdir: join(dir, '.git') });
    await index.update(await serverCommit(dir, { 'c.md': 'resolved', 'notes/a.md': 'before b' }), dir);
    const out = readFileSync(join(dir, '.git/index'));
    expect(out.readUInt32BE(4)).to.equal(3);
    expect(
      lsStage(dir)
        .filter((e) => e[3] === 'c.md')
        .map((e) => e[2]),
    ).to.deep.equal(['0']);
    expect(sh(dir, 'git ls-files -v -t notes')).to.equal('H notes/a.md\nS notes/b.md\n');
    git(dir, ['fsck', '--no-dangling', '--no-progress']);
    // Once no entry needs them, the index goes back to version 2.
    git(dir, ['update-index', '--no-skip-worktree', 'notes/b.md']);
    await index.update(await serverCommit(dir, { 'd.md': 'd' }), dir);
    expect(readFileSync(join(dir, '.git/index')).readUInt32BE(4)).to.equal(2);
    isClean(dir);
  });

  it("smudges an entry as new as the index (git's racy-clean rule) only when its file changed under the same stat data", async () => {
    const dir = copyOfSeed();
    const index = new GitIndex({ gitdir: join(dir, '.git') });
    const changes = await serverCommit(dir, { 'p.md': 'committed', 'q.md': 'unchanged' });
    // Same size, other bytes, and times ahead of the index about to be written: the stat alone would say clean.
    writeFileSync(join(dir, 'p.md'), 'edited!!!');
    const ahead = new Date(Date.now() + 60_000);
    for (const path of ['p.md', 'q.md']) utimesSync(join(dir, path), ahead, ahead);
    await index.update(
      changes.map((c) => ({ ...c, size: 9 })),
      dir,
    );
    const sizes = () => new Map(indexEntriesOf(readFileSync(join(dir, '.git/index'))).map((e) => [e.path, e.stat.size]));
    expect(sizes().get('p.md')).to.equal(9);
    await index.update(await serverCommit(dir, { 'r.md': 'r' }), dir);
    expect(sizes().get('p.md')).to.equal(0);
    expect(sizes().get('q.md')).to.equal(9);
    expect(sh(dir, 'git status --porcelain')).to.equal(' M p.md\n');
  });

  it('update after a server commit leaves git status clean, for non-ASCII names and names that sort trickily', async () => {
    const dir = copyOfSeed();
    const index = new GitIndex({ gitdir: join(dir, '.git') });
    const files = {
      'a.md': 'changed',
      'a-b': '1',
      'a.b': '2',
      ab: '3',
      'x/b': '4',
      'x-b': '5',
      'x.b': '6',
      'ünï/çødé 🎉.md': '7',
      'z\uE000.md': '8',
      'z😀.md': '9',
    };
    await index.update(await serverCommit(dir, files), dir);
    isClean(dir);
    // From the entries in memory, git not running in between (so it does not rewrite the index).
    await index.update(await serverCommit(dir, { 'a-b': '1 again', 'notes/c.md': 'c' }), dir);
    await index.update(await serverCommit(dir, { 'x/b': '4 again', 'notes/c.md': null }), dir);
    await index.update(await serverCommit(dir, { 'a.b': '2 again', 'x/c': 'c' }), dir);
    isClean(dir);
    const listed = lsStage(dir).map((e) => e[3]);
    expect(listed).to.include.members(Object.keys(files));
    expect(listed).to.deep.equal([...listed].sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)))); // UTF-8 byte order
    git(dir, ['fsck', '--no-dangling', '--no-progress']); // fails on "unordered stage entries in index"
  });

  it('update removes deleted paths and handles a file that becomes a folder and back', async () => {
    const dir = copyOfSeed();
    const index = new GitIndex({ gitdir: join(dir, '.git') });
    await index.update(await serverCommit(dir, { 'notes/b.md': null }), dir);
    isClean(dir);
    await index.update(await serverCommit(dir, { 'a.md': null, 'a.md/inner.md': 'now a folder' }), dir);
    isClean(dir);
    rmSync(join(dir, 'a.md'), { recursive: true });
    await index.update(await serverCommit(dir, { 'a.md': 'a file again' }), dir); // a folder that becomes a file
    isClean(dir);
  });

  it('re-reads the index after git changed it (git add) instead of reusing its memory', async () => {
    const dir = copyOfSeed();
    const index = new GitIndex({ gitdir: join(dir, '.git') });
    await index.update(await serverCommit(dir, { 'one.md': '1' }), dir);
    put(dir, 'staged-by-user.md', 'u');
    git(dir, ['add', 'staged-by-user.md']);
    await index.update(await serverCommit(dir, { 'two.md': '2' }), dir);
    expect(git(dir, ['status', '--porcelain'])).to.equal('A  staged-by-user.md\n');
  });

  it('does not record a working file that differs from the blob as clean', async () => {
    const dir = copyOfSeed();
    const index = new GitIndex({ gitdir: join(dir, '.git') });
    const changes = await serverCommit(dir, { 'p.md': 'committed' });
    writeFileSync(join(dir, 'p.md'), 'edited!!!'); // same size, different bytes
    await index.update(changes, dir);
    expect(sh(dir, 'git diff --cached --quiet; git status --porcelain')).to.equal(' M p.md\n');
  });

  it('rebuilds a deleted index from the tree so git status is clean', async () => {
    const dir = copyOfSeed();
    rmSync(join(dir, '.git/index'));
    const index = new GitIndex({ gitdir: join(dir, '.git') });
    const err = await index.update(await serverCommit(dir, { 'a.md': 'x' }), dir).catch((e: unknown) => e);
    expect(err).to.be.instanceOf(IndexFileError).with.property('reason', 'missing');
    const files = git(dir, ['ls-tree', '-r', '-z', 'HEAD'])
      .split('\0')
      .filter(Boolean)
      .map((line) => {
        const [info, path] = line.split('\t');
        const [mode, , oid] = info.split(' ');
        return { path, oid, mode: parseInt(mode, 8) };
      });
    await index.rebuild(files, dir);
    isClean(dir);
  });

  /** A repo with a server commit whose index update is pending, and index.lock held by "git". */
  const withHeldLock = async () => {
    const dir = copyOfSeed();
    const changes = await serverCommit(dir, { 'w.md': 'w' });
    const lock = join(dir, '.git/index.lock');
    writeFileSync(lock, 'git');
    return { dir, changes, lock };
  };

  it('waits for a lock git holds and writes once it is released', async () => {
    const { dir, changes, lock } = await withHeldLock();
    const started = Date.now();
    setTimeout(() => rmSync(lock, { force: true }), 40);
    await new GitIndex({ gitdir: join(dir, '.git'), waitMs: 1000 }).update(changes, dir);
    expect(Date.now() - started).to.be.at.least(35);
    isClean(dir);
  });

  it('throws VAULT_BUSY and leaves the foreign lock in place when git keeps holding index.lock', async () => {
    const { dir, changes, lock } = await withHeldLock();
    const before = readFileSync(join(dir, '.git/index'));
    const err = await new GitIndex({ gitdir: join(dir, '.git'), waitMs: 30 }).update(changes, dir).catch((e: unknown) => e);
    expect(isQuireError(err) && err.code).to.equal('VAULT_BUSY');
    expect(isQuireError(err) && err.details).to.deep.equal({ retry_after: 2, state: 'locked', lock: '.git/index.lock' });
    expect(readFileSync(lock, 'utf8')).to.equal('git');
    expect(readFileSync(join(dir, '.git/index')).equals(before)).to.equal(true);
  });

  it('reads a split index (deletions, replacements, additions) as git does, and writes it back whole', async () => {
    const dir = copyOfSeed();
    // Split with every entry shared, then a change of each kind recorded in the split part.
    sh(
      dir,
      `git config splitIndex.maxPercentChange 100 && git update-index --split-index
      echo changed > a.md && git add a.md && git rm -q --cached run.sh && echo new > new.md && git add new.md`,
    );
    const split = readFileSync(join(dir, '.git/index'));
    const listed = lsStage(dir);
    expect(listed.map((e) => e[3]))
      .to.include('new.md')
      .and.not.include('run.sh');
    expect(() => indexEntriesOf(split), 'without its shared index').to.throw(IndexFileError, /sharedindex/);
    expect(parsedStage(dir, join(dir, '.git'))).to.deep.equal(listed);

    const changes = await serverCommit(dir, { 'notes/c.md': 'c', 'notes/b.md': null });
    await new GitIndex({ gitdir: join(dir, '.git') }).update(changes, dir);
    const whole = readFileSync(join(dir, '.git/index'));
    expect(
      indexEntriesOf(whole).map((e) => e.path),
      'written whole',
    ).to.deep.equal(lsStage(dir).map((e) => e[3]));
    // The user's own staged changes are kept; the server's commit is in the index, not shown as a change.
    expect(sh(dir, 'git status --porcelain').split('\n').filter(Boolean).sort()).to.deep.equal([
      '?? run.sh',
      'A  new.md',
      'D  run.sh',
      'M  a.md',
    ]);
    expect(lsStage(dir).map((e) => e[3]))
      .to.include('notes/c.md')
      .and.not.include('notes/b.md');
  });

  it('reads a split index whose bitmaps hold runs of ones (every entry of a big folder replaced)', () => {
    const made = tempDir('quire-index-runs-');
    cleanups.push(made.cleanup);
    const dir = made.path;
    // 200 entries replaced in a row: git's EWAH writes whole words of ones as runs.
    sh(
      dir,
      `git init -q --template= -b main && for i in $(seq 1 200); do echo $i > f$i.md; done && git add -A
      git commit -q -m seed && git config splitIndex.maxPercentChange 100 && git update-index --split-index
      for i in $(seq 1 200); do echo x$i > f$i.md; done && git add -A && git rm -q --cached f150.md`,
    );
    expect(() => indexEntriesOf(readFileSync(join(dir, '.git/index'))), 'split').to.throw(IndexFileError, /sharedindex/);
    expect(parsedStage(dir, join(dir, '.git'))).to.deep.equal(lsStage(dir));
  });

  it('refuses a split index whose shared index is gone or is another, and a sparse index, leaving the file untouched', async () => {
    const dir = copyOfSeed();
    git(dir, ['update-index', '--split-index']);
    const sharedName = sh(dir, 'ls .git | grep sharedindex').trim();
    const other = copyOfSeed();
    sh(other, 'echo x > a.md && git add a.md && git update-index --split-index');
    const otherShared = sh(other, 'ls .git | grep sharedindex').trim();
    writeFileSync(join(dir, '.git', sharedName), readFileSync(join(other, '.git', otherShared)));
    const before = readFileSync(join(dir, '.git/index'));
    expect(() => indexEntriesOf(before, join(dir, '.git'))).to.throw(IndexFileError, /not the index it names/);
    rmSync(join(dir, '.git', sharedName));
    expect(() => indexEntriesOf(before, join(dir, '.git'))).to.throw(IndexFileError, /missing/);
    const err = await new GitIndex({ gitdir: join(dir, '.git') })
      .update(await serverCommit(dir, { 'a.md': 'x' }), dir)
      .catch((e: unknown) => e);
    expect(err).to.be.instanceOf(IndexFileError).with.property('reason', 'corrupt');
    expect(readFileSync(join(dir, '.git/index')).equals(before)).to.equal(true);
    expect(existsSync(join(dir, '.git/index.lock'))).to.equal(false);

    const sparse = Buffer.from(readFileSync(join(seed, '.git/index')));
    const body = sparse.subarray(0, sparse.length - 20);
    const withSdir = Buffer.concat([body, Buffer.from('sdir'), Buffer.alloc(4)]);
    const framed = Buffer.concat([withSdir, createHash('sha1').update(withSdir).digest()]);
    expect(() => indexEntriesOf(framed))
      .to.throw(IndexFileError, /sdir/)
      .with.property('reason', 'unsupported');
  });

  it('refuses a corrupted checksum and accepts the zero checksum of index.skipHash', () => {
    const buf = readFileSync(join(seed, '.git/index'));
    const bad = Buffer.from(buf);
    bad[bad.length - 1] ^= 1;
    expect(() => indexEntriesOf(bad))
      .to.throw(IndexFileError)
      .with.property('reason', 'corrupt');
    const zero = Buffer.from(buf);
    zero.fill(0, zero.length - 20);
    expect(indexEntriesOf(zero)).to.have.length(lsStage(seed).length);
  });

  it('takes the mode from the stat: symlink, executable only when core.filemode counts', () => {
    const oid = '0'.repeat(40);
    expect(entryFromStat('link.md', oid, undefined, lstatSync(join(seed, 'link.md'))).mode).to.equal(0o120000);
    expect(entryFromStat('run.sh', oid, undefined, lstatSync(join(seed, 'run.sh'), { bigint: true })).mode).to.equal(0o100755);
    expect(entryFromStat('run.sh', oid, undefined, lstatSync(join(seed, 'run.sh')), false).mode).to.equal(0o100644);
    const big = lstatSync(join(seed, 'a.md'), { bigint: true });
    const e = entryFromStat('a.md', oid, 0o100644, big);
    expect(e.stat.mtimeNsec).to.equal(Number(big.mtimeNs % 1_000_000_000n));
    expect(e.stat.size).to.equal(1);
  });
});
