import { expect } from 'chai';
import { existsSync, mkdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Vault, type CommitEvent } from '../../../vault-store/vault.js';
import { commitExternalEdits } from '../../../vault-store/watcher/external-edits.js';
import { VaultWatcher } from '../../../vault-store/watcher/vault-watcher.js';
import { gitIn, tempVault, testAuthor } from '../../helpers/temp-vault.js';
import { historyOf, recordCommits, waitFor } from './helpers.js';

type TempVault = Awaited<ReturnType<typeof tempVault>>;

// Short timings keep the suite fast; the defaults are exercised by the benchmark.
const OPTIONS = { quietMs: 100, stabilityMs: 50 };

describe('VaultWatcher', () => {
  let t: TempVault;
  let watcher: VaultWatcher | undefined;
  let events: CommitEvent[];

  beforeEach(async () => {
    t = await tempVault({ 'a.md': '# A\n', 'notes/b.md': '# B\n' });
    events = recordCommits(t.vault);
  });
  afterEach(async () => {
    await watcher?.close();
    watcher = undefined;
    t.cleanup();
  });

  const put = (path: string, content: string) => {
    mkdirSync(join(t.dir, path, '..'), { recursive: true });
    writeFileSync(join(t.dir, path), content);
  };
  const nextCommit = (count = 1) => waitFor(`${count} commit(s)`, () => (events.length >= count ? events[count - 1] : undefined));

  it('commits a direct file edit as one commit by external, with the trailer', async () => {
    watcher = await VaultWatcher.start(t.vault, OPTIONS);
    put('notes/b.md', '# B edited\n');

    const event = await nextCommit();

    expect(event.author.name).to.equal('external');
    expect(event.changes.map((c) => `${c.op} ${c.path}`)).to.deep.equal(['modify notes/b.md']);
    expect(gitIn(t.dir, 'log', '-1', '--format=%an%n%(trailers:key=Quire-Actor)')).to.equal('external\nQuire-Actor: external\n\n');
    const state = await waitFor('the watcher state', () => (watcher!.state().lastCommit ? watcher!.state() : undefined));
    expect(state).to.include({ watching: true, pending: 0 });
    expect(state.lastCommit!.commit).to.equal(event.commit);
  });

  it('turns several quick edits into one commit', async () => {
    watcher = await VaultWatcher.start(t.vault, OPTIONS);
    for (let i = 1; i <= 5; i++) {
      put('a.md', `# A, draft ${i}\n`);
      put(`new/page-${i}.md`, `# Page ${i}\n`);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }

    const event = await nextCommit();
    await new Promise((resolve) => setTimeout(resolve, OPTIONS.quietMs * 3));

    expect(events).to.have.length(1);
    expect(event.changes).to.have.length(6);
    expect(gitIn(t.dir, 'show', 'HEAD:a.md')).to.equal('# A, draft 5\n');
  });

  it('commits a deleted file and a deleted folder as deletes', async () => {
    put('notes/deep/c.md', '# C\n');
    watcher = await VaultWatcher.start(t.vault, OPTIONS);
    await nextCommit(); // the start-up scan picks up c.md
    rmSync(join(t.dir, 'a.md'));
    rmSync(join(t.dir, 'notes'), { recursive: true });

    const event = await nextCommit(2);

    expect(event.changes.map((c) => `${c.op} ${c.path}`)).to.deep.equal(['delete a.md', 'delete notes/b.md', 'delete notes/deep/c.md']);
    expect([...t.vault.manifest.entries()].map(([path]) => path)).to.deep.equal(['.gitignore']);
  });

  it('commits a renamed folder as one commit of deletes and adds', async () => {
    watcher = await VaultWatcher.start(t.vault, OPTIONS);
    renameSync(join(t.dir, 'notes'), join(t.dir, 'archive'));

    const event = await nextCommit();

    expect(event.changes.map((c) => `${c.op} ${c.path}`)).to.deep.equal(['add archive/b.md', 'delete notes/b.md']);
  });

  it('ignores .git and ignored files, and commits other dot-files', async () => {
    put('.gitignore', '.obsidian/workspace*.json\n');
    await commitExternalEdits(t.vault);
    watcher = await VaultWatcher.start(t.vault, OPTIONS);
    put('.obsidian/workspace.json', '{"open":"a.md"}');
    put('.obsidian/app.json', '{"vimMode":true}');
    put('notes/.draft.md', 'hidden');
    gitIn(t.dir, 'gc', '--quiet'); // rewrites files under .git

    const event = await nextCommit(2); // the first is the .gitignore's
    await new Promise((resolve) => setTimeout(resolve, OPTIONS.quietMs * 3));

    expect(event.changes.map((c) => c.path)).to.deep.equal(['.obsidian/app.json', 'notes/.draft.md']);
    expect(events).to.have.length(2); // the .gitignore's, then this one
  });

  it('makes no extra commits for the server’s own writes', async () => {
    watcher = await VaultWatcher.start(t.vault, OPTIONS);
    await t.pages.write(testAuthor, { path: 'a.md', content: '# A via API\n' });
    await t.pages.write(testAuthor, { path: 'new/c.md', content: '# C via API\n' });
    await t.pages.delete(testAuthor, { path: 'notes/b.md' });

    await new Promise((resolve) => setTimeout(resolve, OPTIONS.quietMs * 4));
    await waitFor('an idle watcher', () => (watcher!.state().pending === 0 ? true : undefined));

    expect(events.map((e) => e.author.name)).to.deep.equal(['key:test', 'key:test', 'key:test']);
  });

  it('commits at start-up what changed while it was stopped', async () => {
    watcher = await VaultWatcher.start(t.vault, OPTIONS);
    await watcher.close();
    put('a.md', '# A edited while stopped\n');
    put('offline.md', '# Written offline\n');
    put('notes/.b.md.quire-tmp-0123456789ab', '# a write a crash cut short\n');
    const reopened = await Vault.open(t.dir);

    watcher = await VaultWatcher.start(reopened, OPTIONS);

    expect(historyOf(t.dir)[0]).to.equal('external|External edits to 2 files');
    expect(gitIn(t.dir, 'show', 'HEAD:offline.md')).to.equal('# Written offline\n');
    expect(existsSync(join(t.dir, 'notes/.b.md.quire-tmp-0123456789ab')), 'a leftover temp file is removed').to.equal(false);
    gitIn(t.dir, 'fsck', '--strict');
    expect(gitIn(t.dir, 'status', '--porcelain')).to.equal('');
  });

  it('waits for a file still being written to settle', async () => {
    watcher = await VaultWatcher.start(t.vault, { quietMs: 50, stabilityMs: 400 });
    put('a.md', '# A first half');
    const writtenAt = statSync(join(t.dir, 'a.md')).mtimeMs;

    const event = await nextCommit();

    expect(event.at.getTime() - writtenAt).to.be.at.least(350);
  });

  it('watches one fs.watch per visible folder, never a file, and picks up folders created later', async () => {
    put('x/y/z.md', '# Z\n');
    watcher = await VaultWatcher.start(t.vault, OPTIONS);
    expect(watcher.state().folders).to.equal(4); // root, notes, x, x/y — not .git, not files

    put('new/deep/page.md', '# Deep\n');
    const event = await nextCommit(2); // the first is the start-up scan's x/y/z.md
    expect(event.changes.map((c) => c.path)).to.include('new/deep/page.md');
    expect(watcher.state().folders).to.equal(6);
  });

  it('reports files it will not commit because of their paths', async () => {
    watcher = await VaultWatcher.start(t.vault, OPTIONS);
    put('back\\slash.md', 'x');
    put('fine.md', 'y');

    await nextCommit();

    expect(watcher.state().skipped.map((s) => s.path)).to.deep.equal(['back\\slash.md']);
  });
});
