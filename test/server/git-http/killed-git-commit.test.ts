import { expect } from 'chai';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { childEnv } from '../../helpers/child-env.js';
import { startTestServer, type TestServer } from '../../helpers/test-server.js';
import { gitIn } from '../../helpers/temp-vault.js';
import { until } from '../../helpers/until.js';
import { AUTHOR, fsck } from './git-client.js';

describe('crash: a git commit killed while its editor is open', function () {
  this.timeout(60_000);
  let server: TestServer;
  let editor: ChildProcess | undefined;
  afterEach(async () => {
    if (editor?.pid && editor.exitCode === null && editor.signalCode === null) process.kill(-editor.pid, 'SIGKILL');
    await server.stop();
  });

  it('answers VAULT_BUSY naming the stale index.lock, then after its removal writes again and commits the folder edit', async () => {
    server = await startTestServer({ QUIRE_WATCH: 'true', QUIRE_GIT_LOCK_WAIT_MS: '500' });
    const key = await server.key('bob', 'write');
    expect((await server.api('/vault/page', { method: 'POST', key, json: { path: 'notes/a.md', content: 'before\n' } })).status).to.equal(
      201,
    );
    const vault = (await server.services.vaults.get('bob')).dir;

    // The edit, then at once `git commit -a`, whose editor never returns: git holds .git/index.lock.
    // --allow-empty: should the watcher commit the edit first, git still opens its editor.
    writeFileSync(join(vault, 'notes/a.md'), 'edited in the folder\n');
    const lock = join(vault, '.git/index.lock');
    // git gives up at once when the server holds index.lock for a commit of its own: try again.
    for (let attempt = 0; ; attempt++) {
      const git = spawn('git', [...AUTHOR, 'commit', '-a', '--allow-empty'], {
        cwd: vault,
        env: childEnv({ GIT_EDITOR: 'sleep 60;:' }),
        stdio: 'ignore',
        detached: true, // its own process group: git and the editor it started are killed together
      });
      editor = git;
      const exited = new Promise<boolean>((resolve) => git.once('exit', () => resolve(true)));
      const editing = until(
        'git to take .git/index.lock and open its editor',
        5_000,
        () => existsSync(lock) && existsSync(join(vault, '.git/COMMIT_EDITMSG')),
      ).then(() => false);
      editing.catch(() => undefined); // lost the race to git's exit: its time-out is no failure
      if (!(await Promise.race([exited, editing]))) break;
      expect(attempt, 'git commit keeps failing to start').to.be.below(5);
    }
    const group = editor.pid!;
    const gone = new Promise((resolve) => editor!.once('exit', resolve));
    process.kill(-group, 'SIGKILL');
    await gone;
    expect(existsSync(lock), 'git killed mid-commit leaves its index.lock').to.equal(true);
    // Read once git held the lock: the watcher may have committed the edit just before that.
    const before = gitIn(vault, 'rev-parse', 'main').trim();

    const t0 = Date.now();
    const busy = await server.api('/vault/page', { method: 'POST', key, json: { path: 'notes/b.md', content: 'blocked\n' } });
    const body = await busy.json();
    expect(busy.status, JSON.stringify(body)).to.equal(503);
    expect(body.code).to.equal('VAULT_BUSY');
    expect(body.message).to.include('.git/index.lock');
    expect(Date.now() - t0).to.be.at.least(400);
    expect(gitIn(vault, 'rev-parse', 'main').trim()).to.equal(before);
    gitIn(vault, 'cat-file', '-e', `${before}^{commit}`);
    gitIn(vault, 'ls-tree', '-r', before);
    expect(fsck(vault).status).to.equal(0);
    expect(existsSync(lock), 'the server never removes a lock git left').to.equal(true);

    // What the message tells the user to do; then nothing is lost.
    rmSync(lock);
    const res = await server.api('/vault/page', { method: 'POST', key, json: { path: 'notes/b.md', content: 'after the lock\n' } });
    expect(res.status, await res.clone().text()).to.equal(201);
    await until('the folder edit to be committed', 8_000, () => gitIn(vault, 'show', 'main:notes/a.md') === 'edited in the folder\n').catch(
      () => {
        throw new Error(
          `notes/a.md at main: ${JSON.stringify(gitIn(vault, 'show', 'main:notes/a.md'))}; git status: ${gitIn(vault, 'status', '--porcelain')}`,
        );
      },
    );
    expect(gitIn(vault, 'log', '-1', '--format=%an', 'main', '--', 'notes/a.md').trim()).to.equal('external');
    expect(gitIn(vault, 'show', 'main:notes/b.md')).to.equal('after the lock\n');
    await until('git status in the vault to be clean', 5_000, () => gitIn(vault, 'status', '--porcelain') === '');
    expect(fsck(vault).status).to.equal(0);
  });
});
