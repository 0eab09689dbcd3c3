import { expect } from 'chai';
import { mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { hashBlob } from '../../../vault-store/git/hash-blob.js';
import { Vault } from '../../../vault-store/vault.js';
import { commitExternalEdits } from '../../../vault-store/watcher/external-edits.js';
import { gitIn, tempVault, testAuthor } from '../../helpers/temp-vault.js';
import { historyOf } from './helpers.js';

type TempVault = Awaited<ReturnType<typeof tempVault>>;

describe('commitExternalEdits', () => {
  let t: TempVault;
  beforeEach(async () => {
    t = await tempVault({ 'a.md': '# A\n', 'notes/b.md': '# B\n', 'notes/c.md': '# C\n' });
  });
  afterEach(() => t.cleanup());

  const put = (path: string, content: string) => {
    mkdirSync(join(t.dir, path, '..'), { recursive: true });
    writeFileSync(join(t.dir, path), content);
  };

  it('commits adds, edits and deletes found by a full scan as one commit by external', async () => {
    put('a.md', '# A edited\n');
    put('new/d.md', '# D\n');
    put('img/pic.png', 'png bytes');
    rmSync(join(t.dir, 'notes/b.md'));

    const event = await commitExternalEdits(t.vault);

    expect(event!.changes.map((c) => `${c.op} ${c.path}`)).to.deep.equal([
      'modify a.md',
      'add img/pic.png',
      'add new/d.md',
      'delete notes/b.md',
    ]);
    expect(gitIn(t.dir, 'log', '-1', '--format=%an <%ae>%n%B')).to.equal(
      'external <external@quire.invalid>\nExternal edits to 4 files\n\nQuire-Actor: external\n\n',
    );
    expect(gitIn(t.dir, 'show', 'HEAD:a.md')).to.equal('# A edited\n');
    expect(t.vault.manifest.get('notes/b.md')).to.equal(undefined);
    expect(await commitExternalEdits(t.vault), 'a second scan finds nothing').to.equal(undefined);
    gitIn(t.dir, 'fsck', '--strict');
  });

  it('leaves the edited file in place rather than rewriting it under its editor', async () => {
    put('a.md', '# A edited\n');
    const inode = statSync(join(t.dir, 'a.md')).ino;

    await commitExternalEdits(t.vault, ['a.md']);

    expect(statSync(join(t.dir, 'a.md')).ino).to.equal(inode);
  });

  it('looks only at the given paths, expanding folders and vanished folders', async () => {
    put('a.md', '# A edited\n');
    put('notes/c.md', '# C edited\n');
    put('moved-in/x/e.md', '# E\n');

    const first = await commitExternalEdits(t.vault, ['notes/c.md', 'moved-in']);
    expect(first!.changes.map((c) => c.path)).to.deep.equal(['moved-in/x/e.md', 'notes/c.md']);

    rmSync(join(t.dir, 'notes'), { recursive: true });
    const second = await commitExternalEdits(t.vault, ['notes']);
    expect(second!.changes.map((c) => `${c.op} ${c.path}`)).to.deep.equal(['delete notes/b.md', 'delete notes/c.md']);
    expect(t.vault.manifest.get('a.md')!.oid, 'a.md was not named').to.equal(hashBlob(Buffer.from('# A\n')));
  });

  it('never commits .git, a nested repository’s .git or its own temp files, but commits other dot-files', async () => {
    put('.obsidian/app.json', '{}');
    put('.hidden.md', 'a file, not a page');
    put('notes/.a.md.quire-tmp-0123456789ab', 'half written');
    put('nested/.git/HEAD', 'ref: refs/heads/main\n');
    put('nested/page.md', '# In a nested repository\n');

    const event = await commitExternalEdits(t.vault);

    expect(event!.changes.map((c) => c.path)).to.deep.equal(['.hidden.md', '.obsidian/app.json', 'nested/page.md']);
    const { pages } = await t.pages.list({ limit: 100 });
    expect(pages.map((p: { path: string }) => p.path)).to.not.include('.hidden.md');
    expect(await commitExternalEdits(t.vault, ['.git/HEAD', 'notes/.a.md.quire-tmp-0123456789ab', 'nested/.git'])).to.equal(undefined);
    gitIn(t.dir, 'fsck', '--strict');
  });

  it('skips and reports files whose paths break the path rules, committing the rest', async () => {
    put('bad\\name.md', 'backslash');
    put('tab\there.png', 'control character');
    put('cafe\u0301.md', 'not NFC');
    put('good.md', 'fine');
    const skipped: string[] = [];

    const event = await commitExternalEdits(t.vault, undefined, { onSkip: (path) => skipped.push(path) });

    expect(event!.changes.map((c) => c.path)).to.deep.equal(['good.md']);
    expect(skipped.sort()).to.deep.equal(['bad\\name.md', 'cafe\u0301.md', 'tab\there.png']);
    expect(gitIn(t.dir, 'ls-tree', '-r', '-z', '--name-only', 'HEAD').split('\0').filter(Boolean)).to.deep.equal([
      '.gitignore',
      'a.md',
      'good.md',
      'notes/b.md',
      'notes/c.md',
    ]);
  });

  it('makes the start-up scan recover files written before a crash moved the ref', async () => {
    // What a crash between the working-file write and the ref move leaves: newer files, old HEAD.
    put('a.md', '# A from the lost write\n');
    const reopened = await Vault.open(t.dir);

    const event = await commitExternalEdits(reopened);

    expect(event!.changes.map((c) => c.path)).to.deep.equal(['a.md']);
    expect(gitIn(t.dir, 'show', 'HEAD:a.md')).to.equal('# A from the lost write\n');
  });
});

describe('Vault.mutate with an edit the watcher has not committed yet', () => {
  let t: TempVault;
  beforeEach(async () => {
    t = await tempVault({ 'a.md': '# A\n' });
  });
  afterEach(() => t.cleanup());

  it('refuses a base_hash taken before the edit with CONFLICT, keeping the edit in history', async () => {
    const baseHash = t.vault.manifest.get('a.md')!.oid;
    writeFileSync(join(t.dir, 'a.md'), '# A edited in Obsidian\n');

    const error = await t.pages.write(testAuthor, { path: 'a.md', content: '# A from the API\n', baseHash }).catch((err) => err);

    expect(error.code).to.equal('CONFLICT');
    expect(error.details.current_hash).to.equal(hashBlob(Buffer.from('# A edited in Obsidian\n')));
    expect(historyOf(t.dir)[0]).to.equal('external|External edit of a.md');
    expect(readFileSync(join(t.dir, 'a.md'), 'utf8')).to.equal('# A edited in Obsidian\n');
    gitIn(t.dir, 'fsck', '--strict');
  });

  it('keeps both versions in history when the write has no base_hash', async () => {
    writeFileSync(join(t.dir, 'a.md'), '# A edited in Obsidian\n');

    const { commit } = await t.pages.write(testAuthor, { path: 'a.md', content: '# A from the API\n' });

    expect(historyOf(t.dir).slice(0, 2)).to.deep.equal(['key:test|Update a.md', 'external|External edit of a.md']);
    expect(gitIn(t.dir, 'show', `${commit}~1:a.md`)).to.equal('# A edited in Obsidian\n');
    expect(gitIn(t.dir, 'show', `${commit}:a.md`)).to.equal('# A from the API\n');
  });

  it('treats a file deleted outside as deleted: updating it with its old hash conflicts', async () => {
    const baseHash = t.vault.manifest.get('a.md')!.oid;
    rmSync(join(t.dir, 'a.md'));

    const error = await t.pages.write(testAuthor, { path: 'a.md', content: 'x', baseHash }).catch((err) => err);

    expect(error.code).to.equal('CONFLICT');
    expect(historyOf(t.dir)[0]).to.equal('external|External edit of a.md');
  });

  it('keeps the edit in history when a writer inside exclusive overwrites the path', async () => {
    writeFileSync(join(t.dir, 'a.md'), '# A edited in Obsidian\n');

    await t.vault.exclusive(() =>
      t.vault.commitChanges(testAuthor, 'Overwrite a.md', [{ path: 'a.md', content: Buffer.from('# A replaced\n') }]),
    );

    expect(historyOf(t.dir).slice(0, 2)).to.deep.equal(['key:test|Overwrite a.md', 'external|External edit of a.md']);
    expect(gitIn(t.dir, 'show', 'HEAD~1:a.md')).to.equal('# A edited in Obsidian\n');
  });

  it('adds no external commit when the working file matches HEAD', async () => {
    const before = historyOf(t.dir).length;
    await t.pages.write(testAuthor, { path: 'a.md', content: '# A again\n' });
    expect(historyOf(t.dir).length).to.equal(before + 1);
  });
});
