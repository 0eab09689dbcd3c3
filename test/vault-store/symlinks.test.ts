import { expect } from 'chai';
import { lstatSync, mkdirSync, readFileSync, readdirSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { replaceFileUnder } from '../../vault-store/atomic-file.js';
import { isQuireError } from '../../vault-store/errors.js';
import { Pages } from '../../vault-store/pages.js';
import { Vault } from '../../vault-store/vault.js';
import { commitExternalEdits } from '../../vault-store/watcher/external-edits.js';
import { VaultWatcher } from '../../vault-store/watcher/vault-watcher.js';
import { tempDir } from '../helpers/temp-dir.js';
import { gitIn, tempVault, testAuthor } from '../helpers/temp-vault.js';
import { waitFor } from './watcher/helpers.js';

type TempVault = Awaited<ReturnType<typeof tempVault>>;

async function refusal(promise: Promise<unknown>): Promise<{ code: string; symlink: unknown }> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!isQuireError(err)) throw new Error(`expected a QuireError, got ${String(err)}`);
  return { code: err.code, symlink: err.details.symlink };
}

describe('symbolic links in the working tree', () => {
  let t: TempVault;
  let outside: ReturnType<typeof tempDir>;
  beforeEach(async () => {
    t = await tempVault({ 'a.md': '# A\n', 'notes/b.md': '# B\n' });
    outside = tempDir('quire-outside-');
    writeFileSync(join(outside.path, 'b.md'), '# Outside\n');
  });
  afterEach(() => {
    t.cleanup();
    outside.cleanup();
  });

  it('replaceFileUnder refuses a linked folder on the way, and replaces or removes a link itself, never its target', async () => {
    symlinkSync(outside.path, join(t.dir, 'linked'));
    expect(await refusal(replaceFileUnder(t.dir, 'linked/deeper/x.md', Buffer.from('x')))).to.deep.equal({
      code: 'INVALID_PATH',
      symlink: 'linked',
    });
    expect(await refusal(replaceFileUnder(t.dir, 'linked/b.md', null))).to.deep.equal({ code: 'INVALID_PATH', symlink: 'linked' });
    expect(readdirSync(outside.path)).to.deep.equal(['b.md']);

    symlinkSync(join(outside.path, 'b.md'), join(t.dir, 'link.md'));
    await replaceFileUnder(t.dir, 'link.md', Buffer.from('# Mine\n'));
    expect(lstatSync(join(t.dir, 'link.md')).isFile()).to.equal(true);
    symlinkSync(join(outside.path, 'b.md'), join(t.dir, 'other.md'));
    await replaceFileUnder(t.dir, 'other.md', null);
    expect(readdirSync(t.dir)).to.not.include('other.md');
    expect(readFileSync(join(outside.path, 'b.md'), 'utf8')).to.equal('# Outside\n');
  });

  it('keeps HEAD as it is beneath a committed folder that became a link, and reports the link', async () => {
    rmSync(join(t.dir, 'notes'), { recursive: true });
    symlinkSync(outside.path, join(t.dir, 'notes'));

    for (const paths of [undefined, ['notes'], ['notes/b.md']]) {
      const skipped = new Set<string>();
      expect(
        await commitExternalEdits(t.vault, paths, { onSkip: (path, reason) => skipped.add(`${path}: ${reason}`) }),
        String(paths),
      ).to.equal(undefined);
      expect([...skipped], String(paths)).to.deep.equal(['notes: symlink']);
    }
    expect(gitIn(t.dir, 'show', 'HEAD:notes/b.md')).to.equal('# B\n');
  });

  it('commits a real file that replaced a link from git as a regular file, after which writes go through', async () => {
    gitIn(t.dir, 'reset', '-q');
    symlinkSync(join(outside.path, 'b.md'), join(t.dir, 'link.md'));
    gitIn(t.dir, 'add', 'link.md');
    gitIn(t.dir, '-c', 'user.name=x', '-c', 'user.email=x@example.com', 'commit', '-q', '-m', 'link');
    const vault = await Vault.open(t.dir);
    const pages = new Pages(vault);
    rmSync(join(t.dir, 'link.md'));
    expect(await refusal(pages.write(testAuthor, { path: 'link.md', content: 'x' }))).to.deep.equal({
      code: 'INVALID_PATH',
      symlink: 'link.md',
    });

    writeFileSync(join(t.dir, 'link.md'), '# Real now\n');
    await commitExternalEdits(vault);
    expect(gitIn(t.dir, 'ls-tree', 'HEAD', 'link.md')).to.match(/^100644 blob /);
    await pages.write(testAuthor, { path: 'link.md', content: '# Edited\n' });
    expect((await pages.read('link.md')).content).to.equal('# Edited\n');
    gitIn(t.dir, 'fsck', '--strict');
  });

  it('opens a vault behind a linked data folder at its real path, and works there', async () => {
    const alias = join(outside.path, 'alias');
    symlinkSync(t.dir, alias);
    const vault = await Vault.open(alias);
    expect(vault.dir).to.equal(realpathSync(t.dir));
    await new Pages(vault).write(testAuthor, { path: 'notes/c.md', content: '# C\n' });
    expect(readFileSync(join(t.dir, 'notes/c.md'), 'utf8')).to.equal('# C\n');
  });

  it('watcher: reports a link made while watching, and forgets it once removed', async () => {
    const watcher = await VaultWatcher.start(t.vault, { quietMs: 50, stabilityMs: 20 });
    try {
      mkdirSync(join(t.dir, 'docs'));
      symlinkSync(outside.path, join(t.dir, 'docs', 'linked'));
      await waitFor('the link reported', () => (watcher.state().skipped.some((s) => s.path === 'docs/linked') ? true : undefined));
      expect(watcher.state().skipped).to.deep.equal([{ path: 'docs/linked', reason: 'symlink' }]);
      rmSync(join(t.dir, 'docs', 'linked'));
      await waitFor('the link forgotten', () => (watcher.state().skipped.length === 0 ? true : undefined));
    } finally {
      await watcher.close();
    }
  });
});
