import { expect } from 'chai';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Workspace } from '../../../vault-store/workspace.js';
import { tempDir } from '../../helpers/temp-dir.js';
import { gitIn, testAuthor } from '../../helpers/temp-vault.js';

/** git run as a person would in the vault folder, with their own name. */
function gitAs(dir: string, ...args: string[]): string {
  return gitIn(dir, '-c', 'user.name=Ada', '-c', 'user.email=ada@example.com', ...args);
}

function log(dir: string): string[] {
  return gitIn(dir, 'log', '--format=%an|%s', 'main').trim().split('\n');
}

describe('commits made outside the server', () => {
  let data: ReturnType<typeof tempDir>;
  let ws: Workspace;
  beforeEach(async () => {
    data = tempDir();
    ws = await Workspace.open(join(data.path, 'vault'), { indexDir: join(data.path, 'index'), persistDelayMs: false, lockWaitMs: 200 });
  });
  afterEach(async () => {
    await ws.close();
    data.cleanup();
  });

  const write = (path: string, content: string, baseHash?: string | null) => ws.pages.write(testAuthor, { path, content, baseHash });

  it('keeps a git commit made in the folder: the next write goes on top of it, and both stay on main', async () => {
    await write('a.md', 'alpha');
    writeFileSync(join(ws.dir, 'git.md'), '# Committed with git\nzebra crossing');
    gitAs(ws.dir, 'add', 'git.md');
    gitAs(ws.dir, 'commit', '-q', '-m', 'My own commit');
    await write('b.md', 'beta');
    expect(log(ws.dir).slice(0, 3)).to.deep.equal(['key:test|Update b.md', 'Ada|My own commit', 'key:test|Update a.md']);
    expect(ws.pagePaths()).to.deep.equal(['a.md', 'b.md', 'git.md']);
    expect(ws.knowledge.search('zebra').results.map((r) => r.path)).to.deep.equal(['git.md']);
    expect(gitIn(ws.dir, 'fsck', '--strict')).to.equal('');
    expect(gitIn(ws.dir, 'status', '--porcelain')).to.equal('');
  });

  it('follows a case-only rename made with git, and writes on the new name', async () => {
    const { page } = await write('Note.md', '# Note');
    gitAs(ws.dir, 'mv', 'Note.md', 'note.md');
    gitAs(ws.dir, 'commit', '-q', '-m', 'Lower-case the name');
    await ws.vault.follow();
    expect(ws.pagePaths()).to.deep.equal(['note.md']);
    await write('note.md', '# Note, again', page.hash);
    expect(gitIn(ws.dir, 'ls-tree', '--name-only', 'main').trim().split('\n')).to.deep.equal(['.gitignore', 'note.md']);
    expect(gitIn(ws.dir, 'status', '--porcelain')).to.equal('');
  });

  it('lists outside commits in the change feed with their own author and message', async () => {
    const start = ws.head;
    writeFileSync(join(ws.dir, 'g.md'), 'from git');
    gitAs(ws.dir, 'add', 'g.md');
    gitAs(ws.dir, 'commit', '-q', '-m', 'Add g from the CLI');
    await ws.vault.follow();
    const feed = await ws.changesSince({ since: start, limit: 10 });
    expect(feed.changes.map((c) => [c.actor, c.message])).to.deep.equal([['Ada', 'Add g from the CLI']]);
  });

  it('follows a reset to an older commit: deleted pages stay deleted, stale cursors must resync', async () => {
    for (const name of ['one', 'two', 'three', 'four']) await write(`${name}.md`, `${name} page`);
    const cursor = ws.head;
    gitIn(ws.dir, 'reset', '-q', '--hard', 'HEAD~3');
    await write('five.md', 'five');
    expect(ws.pagePaths()).to.deep.equal(['five.md', 'one.md']);
    expect(ws.knowledge.search('four').results).to.deep.equal([]);
    expect(gitIn(ws.dir, 'ls-tree', '--name-only', 'main').trim().split('\n')).to.deep.equal(['.gitignore', 'five.md', 'one.md']);
    const err = await ws.changesSince({ since: cursor, limit: 10 }).catch((e: unknown) => e);
    expect(err).to.have.property('code', 'CURSOR_UNKNOWN');
  });

  it('checks base_hash against the newest head: a page changed by a git commit is a conflict', async () => {
    const { page } = await write('a.md', 'alpha');
    writeFileSync(join(ws.dir, 'a.md'), 'alpha, edited and committed with git');
    gitAs(ws.dir, 'commit', '-q', '-am', 'Edit a');
    const err = await write('a.md', 'stale writer', page.hash).catch((e: unknown) => e);
    expect(err).to.have.property('code', 'CONFLICT');
    expect(readFileSync(join(ws.dir, 'a.md'), 'utf8')).to.equal('alpha, edited and committed with git');
  });

  it('waits for git holding the branch lock, then commits on what git committed', async () => {
    await write('a.md', 'alpha');
    const gitdir = join(ws.dir, '.git');
    const lock = join(gitdir, 'refs/heads/main.lock');
    writeFileSync(lock, ''); // git starts a commit
    const pending = write('b.md', 'beta');
    // git finishes: a new commit made with plumbing, then the lock renamed over the ref.
    writeFileSync(join(ws.dir, 'c.md'), 'from git');
    gitAs(ws.dir, 'add', 'c.md');
    const tree = gitIn(ws.dir, 'write-tree').trim();
    const commit = gitAs(ws.dir, 'commit-tree', tree, '-p', 'main', '-m', 'Racing commit').trim();
    writeFileSync(lock, `${commit}\n`);
    renameSync(lock, join(gitdir, 'refs/heads/main'));
    await pending;
    expect(log(ws.dir).slice(0, 2)).to.deep.equal(['key:test|Update b.md', 'Ada|Racing commit']);
    expect(gitIn(ws.dir, 'ls-tree', '--name-only', 'main').trim().split('\n')).to.deep.equal(['.gitignore', 'a.md', 'b.md', 'c.md']);
    expect(gitIn(ws.dir, 'status', '--porcelain')).to.equal('');
  });

  describe('busy states', () => {
    const expectBusy = async (pattern: RegExp) => {
      const before = gitIn(ws.dir, 'rev-parse', 'main');
      const err = await write('busy.md', 'not now').catch((e: unknown) => e);
      expect(err).to.have.property('code', 'VAULT_BUSY');
      expect((err as Error).message).to.match(pattern);
      expect(err).to.have.nested.property('details.retry_after').that.is.a('number');
      expect(gitIn(ws.dir, 'rev-parse', 'main')).to.equal(before);
      expect(existsSync(join(ws.dir, 'busy.md'))).to.equal(false);
      // Reads go on.
      expect((await ws.pages.read('a.md')).content).to.equal('alpha');
    };

    beforeEach(() => write('a.md', 'alpha'));

    it('refuses writes while HEAD is detached, and resumes when the branch is back', async () => {
      gitIn(ws.dir, 'checkout', '-q', '--detach');
      await expectBusy(/HEAD is detached/);
      gitIn(ws.dir, 'checkout', '-q', 'main');
      await write('busy.md', 'now');
    });

    it('refuses writes while another branch is checked out', async () => {
      gitIn(ws.dir, 'checkout', '-q', '-b', 'draft');
      await expectBusy(/branch draft is checked out in the vault folder/i);
    });

    it('refuses writes while a rebase, merge, cherry-pick, revert or bisect is in progress', async () => {
      const gitdir = join(ws.dir, '.git');
      for (const [file, what] of [
        ['rebase-merge/', 'a rebase'],
        ['rebase-apply/', 'a rebase \\(or git am\\)'],
        ['MERGE_HEAD', 'a merge'],
        ['CHERRY_PICK_HEAD', 'a cherry-pick'],
        ['REVERT_HEAD', 'a revert'],
        ['BISECT_LOG', 'a bisect'],
      ]) {
        if (file.endsWith('/')) mkdirSync(join(gitdir, file));
        else writeFileSync(join(gitdir, file), `${ws.head}\n`);
        await expectBusy(new RegExp(`^${what} is in progress in the vault folder`, 'i'));
        rmSync(join(gitdir, file), { recursive: true });
      }
      await write('busy.md', 'now');
    });

    it('refuses writes during a real rebase stopped on a conflict, and resumes once it is aborted', async () => {
      gitIn(ws.dir, 'branch', 'side');
      await write('a.md', 'main version');
      gitIn(ws.dir, 'checkout', '-q', 'side');
      writeFileSync(join(ws.dir, 'a.md'), 'side version');
      gitAs(ws.dir, 'commit', '-q', '-am', 'Side edit');
      gitIn(ws.dir, 'checkout', '-q', 'main');
      expect(() => gitAs(ws.dir, 'rebase', '-q', 'side')).to.throw();
      const err = await write('b.md', 'during the rebase').catch((e: unknown) => e);
      expect(err).to.have.property('code', 'VAULT_BUSY');
      expect((err as Error).message).to.match(/^A rebase is in progress in the vault folder/);
      gitIn(ws.dir, 'rebase', '--abort');
      await write('b.md', 'after the rebase');
      expect(log(ws.dir).slice(0, 2)).to.deep.equal(['key:test|Update b.md', 'key:test|Update a.md']);
      expect(gitIn(ws.dir, 'status', '--porcelain')).to.equal('');
    });

    it('refuses writes while git holds the index lock past the wait, and leaves the lock', async () => {
      writeFileSync(join(ws.dir, '.git/index.lock'), '');
      await expectBusy(/git holds \.git\/index\.lock/);
      expect(existsSync(join(ws.dir, '.git/index.lock'))).to.equal(true);
    });
  });
});
