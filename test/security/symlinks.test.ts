import { expect } from 'chai';
import { execFileSync } from 'node:child_process';
import { lstatSync, mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { vaultDir } from '../../server/vaults/user-vault.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';
import { tempDir } from '../helpers/temp-dir.js';
import { gitIn } from '../helpers/temp-vault.js';
import { waitFor } from '../vault-store/watcher/helpers.js';

/**
 * A symbolic link in a vault folder is never followed: not to commit a file from outside
 * (its target's bytes), not to serve one, and not to write through a linked folder into
 * another place (another user's vault). Links that arrive in git stay links in git.
 */
describe('security: symbolic links in a vault folder', function () {
  this.timeout(60_000);
  let data: ReturnType<typeof tempDir>;
  let outside: ReturnType<typeof tempDir>;
  let server: TestServer;
  let key: string;
  let vault: string;
  let marker: string;
  let secretFile: string;

  /** A server over `data` (not the helper's own temp folder), so it can be stopped and started again. */
  const start = () => startTestServer({}, (config) => ({ ...config, dataDir: data.path }));

  beforeEach(async () => {
    data = tempDir('quire-symlink-data-');
    outside = tempDir('quire-outside-');
    marker = `zanzibar${Math.random().toString(36).slice(2, 10).replace(/\d/g, 'q')}`;
    secretFile = join(outside.path, 'secret.md');
    writeFileSync(secretFile, `# Secret\n${marker}\n`);
    server = await start();
    key = await server.key('alice', 'write', { plan: 'pro' });
    vault = vaultDir(data.path, 'alice');
    expect((await write('seed.md', '# Seed\nplain text\n')).status).to.equal(201);
  });
  afterEach(async () => {
    await server.stop();
    data.cleanup();
    outside.cleanup();
  });

  const write = (path: string, content: string, as = key) =>
    server.api('/vault/page', { method: 'POST', key: as, json: { path, content } });
  const getJson = async (path: string) => {
    const res = await server.api(path, { key });
    expect(res.status, path).to.equal(200);
    return res.json();
  };
  const head = (dir = vault) => gitIn(dir, 'rev-parse', 'main').trim();
  const treeFiles = (dir = vault) => gitIn(dir, 'ls-tree', '-r', '--name-only', 'HEAD').trim().split('\n');
  /** Every object git holds, as text: the marker in any of them means outside bytes were committed. */
  const allObjects = (dir = vault) =>
    execFileSync('git', ['cat-file', '--batch-all-objects', '--batch'], { cwd: dir, maxBuffer: 64 << 20 }).toString('latin1');
  const skipped = async (): Promise<{ path: string; reason: string }[]> => (await getJson('/vault/health')).external_edits.skipped;
  const waitForSkipped = (path: string) =>
    waitFor(`${path} reported as a skipped symlink`, async () =>
      (await skipped()).some((s) => s.path === path && s.reason === 'symlink') ? true : undefined,
    );

  async function expectRefused(res: Response, symlink: string) {
    expect(res.status).to.equal(400);
    const body = await res.json();
    expect(body).to.include({ code: 'INVALID_PATH', symlink });
    expect(body.message).to.include('is a symbolic link');
  }

  async function exportedFiles(): Promise<{ names: string[]; text: string }> {
    const res = await server.api('/vault/export', { key });
    expect(res.status).to.equal(200);
    const zip = join(outside.path, `export-${Date.now()}.zip`);
    writeFileSync(zip, Buffer.from(await res.arrayBuffer()));
    const names = execFileSync('unzip', ['-Z1', zip], { encoding: 'utf8' }).trim().split('\n');
    const text = execFileSync('unzip', ['-p', zip], { encoding: 'latin1' });
    rmSync(zip);
    return { names, text };
  }

  async function expectNotServed(path: string) {
    expect((await server.api(`/vault/page/${path}`, { key })).status, `GET ${path}`).to.equal(404);
    expect((await getJson('/vault/search?q=' + marker)).results).to.deep.equal([]);
    expect((await getJson('/vault/pages?limit=1000')).pages.map((p: { path: string }) => p.path)).to.not.include(path);
    const exported = await exportedFiles();
    expect(exported.names.some((n) => n === path || n.startsWith(`${path}/`))).to.equal(false);
    expect(exported.text).to.not.include(marker);
  }

  function expectNothingCommittedFrom(link: string) {
    expect(
      treeFiles().some((p) => p === link || p.startsWith(`${link}/`)),
      `${link} in HEAD`,
    ).to.equal(false);
    expect(allObjects()).to.not.include(marker);
    gitIn(vault, 'fsck', '--strict');
  }

  it('never commits, serves, searches or exports a linked page, lists it in health, and refuses writes to it', async () => {
    symlinkSync(secretFile, join(vault, 'Note.md'));
    await waitForSkipped('Note.md');
    const before = head();

    await expectRefused(await write('Note.md', 'overwrite the target'), 'Note.md');

    expect(head(), 'no commit').to.equal(before);
    expect(lstatSync(join(vault, 'Note.md')).isSymbolicLink(), 'the link is left alone').to.equal(true);
    expect(readFileSync(secretFile, 'utf8')).to.equal(`# Secret\n${marker}\n`);
    expectNothingCommittedFrom('Note.md');
    await expectNotServed('Note.md');
  });

  it('keeps the committed content of a page replaced by a link, and refuses to write or delete it', async () => {
    await write('diary.md', '# Diary\nmine\n');
    rmSync(join(vault, 'diary.md'));
    symlinkSync(secretFile, join(vault, 'diary.md'));
    await waitForSkipped('diary.md');
    const before = head();

    expect((await getJson('/vault/page/diary.md')).content).to.equal('# Diary\nmine\n');
    await expectRefused(await write('diary.md', 'through the link'), 'diary.md');
    await expectRefused(await server.api('/vault/page/diary.md', { method: 'DELETE', key }), 'diary.md');

    expect(head()).to.equal(before);
    expect(readFileSync(secretFile, 'utf8')).to.equal(`# Secret\n${marker}\n`);
    expect(allObjects()).to.not.include(marker);
    gitIn(vault, 'fsck', '--strict');
  });

  it('refuses writes, moves and captures into a folder linked outside, writing nothing anywhere, and never commits its files', async () => {
    const target = join(outside.path, 'folder');
    mkdirSync(target);
    writeFileSync(join(target, 'x.md'), `# X\n${marker}\n`);
    symlinkSync(target, join(vault, 'linked'));
    symlinkSync(target, join(vault, 'capture'));
    await waitForSkipped('linked');
    const before = head();

    await expectRefused(await write('linked/x.md', 'replaced'), 'linked');
    await expectRefused(await write('linked/new.md', 'planted'), 'linked');
    await expectRefused(
      await server.api('/vault/move', { method: 'POST', key, json: { from: 'seed.md', to: 'linked/seed.md' } }),
      'linked',
    );
    await expectRefused(
      await server.api('/vault/capture', { method: 'POST', key, json: { title: 'Planted', content: 'planted' } }),
      'capture',
    );

    expect(head(), 'no commit').to.equal(before);
    expect(readdirSync(target)).to.deep.equal(['x.md']);
    expect(readFileSync(join(target, 'x.md'), 'utf8')).to.equal(`# X\n${marker}\n`);
    expect((await getJson('/vault/page/seed.md')).content, 'the refused move left its source').to.equal('# Seed\nplain text\n');
    expectNothingCommittedFrom('linked');
    await expectNotServed('linked/x.md');
  });

  it("lets no write reach another user's vault through a linked folder", async () => {
    const bobKey = await server.key('bob', 'write');
    expect((await write('plans/plan.md', `# Plan\n${marker}\n`, bobKey)).status).to.equal(201);
    const bobVault = vaultDir(data.path, 'bob');
    const bobHead = head(bobVault);
    symlinkSync(bobVault, join(vault, 'bobs'));
    await waitForSkipped('bobs');

    await expectRefused(await write('bobs/stolen.md', 'planted'), 'bobs');
    await expectRefused(await write('bobs/plans/plan.md', 'overwritten'), 'bobs');

    expect(head(bobVault), "bob's history is untouched").to.equal(bobHead);
    expect(readdirSync(bobVault).sort()).to.deep.equal(['.git', '.gitignore', 'plans']);
    expect(readFileSync(join(bobVault, 'plans/plan.md'), 'utf8')).to.equal(`# Plan\n${marker}\n`);
    expectNothingCommittedFrom('bobs');
    await expectNotServed('bobs/plans/plan.md');
    gitIn(bobVault, 'fsck', '--strict');
  });

  it('keeps links that arrive in git as links, never serves them as pages and refuses writes at or beneath them', async () => {
    await server.stop();
    // The server keeps no .git/index: build it from HEAD so the commit keeps seed.md.
    gitIn(vault, 'reset', '-q');
    symlinkSync(secretFile, join(vault, 'link.md'));
    symlinkSync(outside.path, join(vault, 'gitlinked'));
    gitIn(vault, 'add', 'link.md', 'gitlinked');
    gitIn(vault, '-c', 'user.name=Someone', '-c', 'user.email=someone@example.com', 'commit', '-q', '-m', 'Add links');
    const committed = head();
    server = await start();

    expect((await getJson('/vault/changes?since=' + gitIn(vault, 'rev-parse', 'main~1').trim())).changes).to.deep.equal([]);
    const snapshot = await getJson('/vault/changes');
    expect(snapshot.changes.flatMap((c: { paths: { path: string }[] }) => c.paths.map((p) => p.path))).to.deep.equal(['seed.md']);
    await expectRefused(await write('link.md', 'replace the link'), 'link.md');
    await expectRefused(await write('gitlinked/x.md', 'beneath the link'), 'gitlinked');

    expect(head(), 'no commit').to.equal(committed);
    expect(gitIn(vault, 'ls-tree', 'HEAD', 'link.md', 'gitlinked')).to.match(
      /^120000 blob [0-9a-f]{40}\tgitlinked\n120000 blob [0-9a-f]{40}\tlink\.md\n$/,
    );
    expect(readdirSync(outside.path)).to.deep.equal(['secret.md']);
    expect(allObjects()).to.not.include(marker);
    await expectNotServed('link.md');
    await expectNotServed('gitlinked');
    const report = await skipped();
    expect(report).to.deep.include({ path: 'link.md', reason: 'symlink' });
    expect(report).to.deep.include({ path: 'gitlinked', reason: 'symlink' });
    gitIn(vault, 'fsck', '--strict');
  });

  it('skips links made while the server was stopped in its start-up scan, committing the real files beside them', async () => {
    await server.stop();
    symlinkSync(secretFile, join(vault, 'offline.md'));
    symlinkSync(outside.path, join(vault, 'offline-folder'));
    mkdirSync(join(vault, 'notes'));
    symlinkSync(secretFile, join(vault, 'notes', 'nested.md'));
    writeFileSync(join(vault, 'notes', 'real.md'), '# Real\n');
    server = await start();

    const report = await skipped();
    expect(report).to.deep.include.members([
      { path: 'offline.md', reason: 'symlink' },
      { path: 'offline-folder', reason: 'symlink' },
      { path: 'notes/nested.md', reason: 'symlink' },
    ]);
    expect(treeFiles()).to.deep.equal(['.gitignore', 'notes/real.md', 'seed.md']);
    expectNothingCommittedFrom('offline.md');
    await expectNotServed('offline.md');
    await expectNotServed('offline-folder/secret.md');
  });
});
