import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { vaultDir } from '../../../server/vaults/user-vault.js';
import { startTestServer, type TestServer } from '../../helpers/test-server.js';
import { gitIn } from '../../helpers/temp-vault.js';

/** How long the two clones and the REST writers run side by side. */
const RUN_MS = 30_000;
const SHARED = ['shared/a.md', 'shared/b.md', 'shared/c.md'];

// Async: the server answering the clone runs in this very process.
function git(cwd: string, ...args: string[]): Promise<{ ok: boolean; out: string }> {
  return new Promise((resolve) => {
    execFile(
      'git',
      ['-c', 'user.name=Obsidian', '-c', `user.email=${cwd.split('/').pop()}@device.example`, ...args],
      { cwd, encoding: 'utf8', env: { ...process.env, GIT_TERMINAL_PROMPT: '0' } },
      (err, stdout, stderr) => resolve({ ok: !err, out: stdout + stderr }),
    );
  });
}

describe('an Obsidian Git loop against Quire as the remote', function () {
  this.timeout(RUN_MS + 60_000);
  let server: TestServer;
  afterEach(() => server?.stop());

  it('keeps every acknowledged write and every pushed commit on main, with all three trees equal', async () => {
    server = await startTestServer({ QUIRE_WATCH: 'true' });
    const key = await server.key('alice', 'write', { plan: 'pro' });
    server.services.config.plans.pro.limits.write = 1e6;
    server.services.config.plans.pro.limits.sync = 1e6;
    for (const path of SHARED) await server.api('/vault/page', { method: 'POST', key, json: { path, content: `# ${path}\n` } });
    const url = server.url.replace('http://', `http://device:${key}@`) + '/vault.git';
    const clones = ['desktop', 'phone'].map((name) => join(server.dataDir, name));
    for (const dir of clones) expect((await git(server.dataDir, 'clone', '-q', url, dir)).ok).to.equal(true);

    const acknowledged: string[] = [];
    const pushed: string[] = [];
    const deadline = Date.now() + RUN_MS;

    /** Obsidian Git's "merge" sync: pull (on a conflict the device's side wins the file), then push. */
    const sync = async (dir: string): Promise<boolean> => {
      const pull = await git(dir, 'pull', '-q', '--no-rebase', '--no-edit', '-X', 'ours', 'origin', 'main');
      if (!pull.ok || !(await git(dir, 'push', '-q', 'origin', 'HEAD:main')).ok) return false;
      pushed.push((await git(dir, 'rev-parse', 'HEAD')).out.trim());
      return true;
    };
    const device = async (dir: string, n: number) => {
      for (let i = 0; Date.now() < deadline; i++) {
        const name = dir.split('/').pop();
        writeFileSync(join(dir, `${name}-${i}.md`), `# ${name} ${i}\n`);
        writeFileSync(join(dir, SHARED[(i + n) % SHARED.length]), `# edited on ${name}, round ${i}\n`);
        await git(dir, 'add', '-A');
        await git(dir, 'commit', '-q', '-m', `vault backup: ${name} ${i}`);
        // A push that loses the race to a REST write is retried at the next round, as Obsidian Git does.
        await sync(dir);
        await sleep(1000 + Math.random() * 1000);
      }
    };
    const writer = async (n: number) => {
      for (let i = 0; Date.now() < deadline; i++) {
        const path = i % 3 === 0 ? SHARED[i % SHARED.length] : `rest/w${n}-${i}.md`;
        const res = await server.api('/vault/page', { method: 'POST', key, json: { path, content: `# rest ${n} ${i}\n` } });
        if (res.ok) acknowledged.push(((await res.json()) as { commit: string }).commit);
        else expect(res.status, await res.text()).to.be.oneOf([409, 503]);
        await sleep(150 + Math.random() * 250);
      }
    };
    await Promise.all([device(clones[0], 0), device(clones[1], 1), writer(0), writer(1)]);

    // Settle: each device pushes what it has left, then both pull the end state.
    for (const dir of clones) {
      let synced = false;
      for (let attempt = 0; attempt < 5 && !synced; attempt++) synced = await sync(dir);
      expect(synced, `${dir} pushed its last commits`).to.equal(true);
    }
    for (const dir of clones) expect((await git(dir, 'pull', '-q', '--no-rebase', '--no-edit', 'origin', 'main')).ok).to.equal(true);
    const vault = vaultDir(server.dataDir, 'alice');
    const main = gitIn(vault, 'rev-parse', 'main').trim();
    expect(acknowledged.length).to.be.greaterThan(5);
    expect(pushed.length).to.be.at.least(clones.length);
    for (const commit of [...acknowledged, ...pushed]) {
      expect(gitIn(vault, 'merge-base', '--is-ancestor', commit, main) === '', `${commit} on main`).to.equal(true);
    }
    const tree = gitIn(vault, 'rev-parse', 'main^{tree}').trim();
    for (const dir of clones) expect(gitIn(dir, 'rev-parse', 'HEAD^{tree}').trim()).to.equal(tree);
    expect(gitIn(vault, 'fsck', '--strict', '--no-dangling')).to.equal('');
    expect(gitIn(vault, 'fsck', '--no-reflogs')).not.to.match(/dangling commit/);
    expect(gitIn(vault, 'status', '--porcelain')).to.equal('');
  });
});
