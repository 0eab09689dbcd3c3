import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { childPids, cmdline, running } from '../../helpers/proc.js';
import { tempDir } from '../../helpers/temp-dir.js';
import { gitIn } from '../../helpers/temp-vault.js';
import { until } from '../../helpers/until.js';
import { AUTHOR, fsck, git, isAncestor, lockFiles, remoteUrl } from './git-client.js';
import { restWriter } from './rest-writer.js';
import { quireIn, serveChild, type ServerChild } from './server-child.js';

// Killed while the server hands the pack to git (git sees a cut pack), or once git has it all
// and runs our hooks (git, orphaned, may still finish the push and move the branch).
// About 8 s each: `npm test` runs the second, `npm run test:soak` both.
type KillPoint = 'feeding the pack to git' | 'git running its hooks';
const KILL_POINTS: KillPoint[] = ['feeding the pack to git', 'git running its hooks'];

describe('crash: kill -9 of the server during REST writes and pushes leaves a complete repository and loses nothing acknowledged', function () {
  this.timeout(60_000);
  let dir: ReturnType<typeof tempDir>;
  before(() => void (dir = tempDir('quire-crash-')));
  const started: ServerChild[] = [];
  after(async () => {
    for (const s of started) if (s.child.exitCode === null && s.child.signalCode === null) s.child.kill('SIGKILL');
    await Promise.all(started.map((s) => s.exited));
    dir.cleanup();
  });

  for (const killPoint of KILL_POINTS)
    it(`keeps every acknowledged write and completed push, passes fsck, and serves again after a restart (killed while ${killPoint})`, async () => {
      const data = join(dir.path, killPoint.replace(/ /g, '-'), 'data');
      quireIn(data, 'user', 'add', 'alice', '--plan', 'pro');
      const key = quireIn(data, 'key', 'create', 'alice', '--name', 'crash', '--scope', 'write').trim();
      const vault = join(data, 'vaults', 'alice');

      const first = await serveChild(data);
      started.push(first);
      const server = first.child.pid!;
      const write = (path: string, content: string, url = first.url) =>
        fetch(`${url}/vault/page`, {
          method: 'POST',
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
          body: JSON.stringify({ path, content }),
        });
      expect((await write('seed.md', 'seed\n')).status).to.equal(201);
      const client = join(data, '..', 'client');
      const cloned = await git(['clone', '-q', remoteUrl(first.url, key), client], dir.path);
      expect(cloned.status, cloned.stderr).to.equal(0);

      const writer = restWriter(write);
      const { acked, refused } = writer;

      // git client: commit, merge the server's branch, push; a push git reports successful is complete.
      const pushed: string[] = [];
      const commitIn = async (files: Record<string, string>, message: string) => {
        for (const [path, content] of Object.entries(files)) {
          mkdirSync(join(client, path, '..'), { recursive: true });
          writeFileSync(join(client, path), content);
        }
        expect((await git(['add', '-A'], client)).status).to.equal(0);
        const committed = await git([...AUTHOR, 'commit', '-q', '-m', message], client);
        expect(committed.status, committed.stderr).to.equal(0);
      };
      const pullAndPush = async () => {
        const pulled = await git([...AUTHOR, 'pull', '-q', '--no-edit', 'origin', 'main'], client);
        expect(pulled.status, pulled.stderr).to.equal(0);
        const sent = git(['push', '-q', 'origin', 'HEAD:main'], client);
        return { sent, commit: (await git(['rev-parse', 'HEAD'], client)).stdout.trim() };
      };
      // No REST write lands between a push's ref advertisement and its pack: that race loses
      // writes (see stale-push.test.ts), which is not what this test is about.
      const pushAlone = async () => {
        await writer.pause();
        try {
          const { sent, commit } = await pullAndPush();
          return { result: await sent, commit };
        } finally {
          writer.resume();
        }
      };
      const rejected: string[] = [];
      for (let i = 0; pushed.length < 3 || acked.length < 10; i++) {
        if (i > 80) throw new Error(`only ${pushed.length} pushes and ${acked.length} writes went through:\n${rejected.join('\n')}`);
        await commitIn({ [`git/g${i}.md`]: `# Git ${i}\n\npushed page ${i}\n` }, `git page ${i}`);
        const { result, commit } = await pushAlone();
        if (result.status === 0) pushed.push(commit);
        else
          rejected.push(
            result.stderr.trim() + (/uncommitted/.test(result.stderr) ? '\nSTATUS ' + gitIn(vault, 'status', '--porcelain') : ''),
          );
      }

      // A larger push (about 3 MB of pack), and the kill as soon as the server's receive-pack runs.
      const big: Record<string, string> = {};
      for (let i = 0; i < 8; i++) big[`git/big${i}.md`] = `# Big ${i}\n\n${randomBytes(300_000).toString('base64')}\n`;
      await commitIn(big, 'big push');
      await writer.pause(); // so the big push is a fast-forward when it arrives
      const { sent, commit: bigCommit } = await pullAndPush();
      let receivePack: number | undefined;
      await until('git receive-pack to start on the server, or the push to end', 20_000, async () => {
        receivePack = childPids(server).find((pid) => {
          const args = cmdline(pid);
          return args.includes('receive-pack') && !args.includes('--advertise-refs');
        });
        return receivePack ?? (await Promise.race([sent.then(() => true), sleep(0).then(() => undefined)]));
      });
      // Writes queued behind the push, in flight at the kill.
      writer.resume();
      const inFlight = [0, 1, 2].map((i) => write(`rest/late${i}.md`, `late ${i}\n`).catch(() => undefined));
      if (receivePack !== undefined && killPoint === 'git running its hooks')
        await until(
          'git to run our hooks',
          5_000,
          () =>
            !running(receivePack!) ||
            childPids(receivePack!).some((pid) => cmdline(pid).some((arg) => /hooks\/(pre-receive|push-to-checkout)$/.test(arg))),
        );
      else await sleep(30);
      first.child.kill('SIGKILL');
      await first.exited;
      await writer.stop();
      await Promise.all(inFlight);
      const bigPush = await sent;
      if (bigPush.status === 0) pushed.push(bigCommit);
      // The git the server started is not killed with it; its work is git's own (atomic ref update).
      if (receivePack !== undefined) await until('the orphaned receive-pack to end', 15_000, () => !running(receivePack!));

      const context = `\n${acked.length} acknowledged writes, ${pushed.length} completed pushes (big push: ${
        receivePack ? 'receive-pack running at the kill' : 'ended before the kill'
      }, git said ${bigPush.status}: ${bigPush.stderr.trim()}); refused writes: ${refused.join(',') || 'none'}\nserver output:\n${first.output()}`;
      expect(acked.length, context).to.be.at.least(10);
      const checked = fsck(vault);
      expect(checked.status, `git fsck --strict after the kill:\n${checked.output}${context}`).to.equal(0);
      const head = gitIn(vault, 'rev-parse', 'main').trim();
      gitIn(vault, 'cat-file', '-e', `${head}^{commit}`);
      expectAllInMain(vault, head, acked, context);
      for (const commit of pushed)
        expect(isAncestor(vault, commit, head), `completed push ${commit} is not in main ${head}${context}`).to.equal(true);
      const locksAfterCrash = lockFiles(join(vault, '.git'));

      // Restart on the same data folder: it serves, writes succeed, and the folder is clean.
      const second = await serveChild(data);
      started.push(second);
      const after = await write('after-restart.md', 'written after the restart\n', second.url);
      expect(after.status, `${await after.clone().text()}\nlocks left by the crash: ${locksAfterCrash.join(', ') || 'none'}`).to.equal(201);
      const { commit: afterCommit } = await after.json();
      await until('git status in the vault to be clean', 8_000, () => gitIn(vault, 'status', '--porcelain') === '').catch(() => {
        throw new Error(`git status --porcelain in the vault after the restart:\n${gitIn(vault, 'status', '--porcelain')}`);
      });
      const newHead = gitIn(vault, 'rev-parse', 'main').trim();
      expect(isAncestor(vault, head, newHead)).to.equal(true);
      expect(isAncestor(vault, afterCommit, newHead)).to.equal(true);
      const again = fsck(vault);
      expect(again.status, `git fsck --strict after the restart:\n${again.output}`).to.equal(0);
      expect(lockFiles(join(vault, '.git')), 'lock files after the restart').to.deep.equal([]);

      second.child.kill('SIGTERM');
      await second.exited;
    });
});

/** Every acknowledged write is in `head`'s history, and its page at `head` is the blob it was acknowledged with. */
function expectAllInMain(vault: string, head: string, acked: { path: string; hash: string; commit: string }[], context: string): void {
  const tree = gitIn(vault, 'ls-tree', '-r', head);
  for (const { path, hash, commit } of acked) {
    expect(isAncestor(vault, commit, head), `acknowledged write ${path} (${commit}) is not in main ${head}${context}`).to.equal(true);
    if (tree.includes(`blob ${hash}\t${path}\n`)) continue;
    const history = gitIn(vault, 'log', '--full-history', '-m', '--name-status', '--format=%h %p %an %s', head, '--', path);
    const shown = spawnSync('git', ['show', `${head}:${path}`], { cwd: vault, encoding: 'utf8' }).stdout;
    const acknowledged = spawnSync('git', ['cat-file', '-p', hash], { cwd: vault, encoding: 'utf8' });
    expect.fail(
      `${path} at main is not the acknowledged blob ${hash}.\nhistory of ${path}:\n${history}\nat main:\n${shown.slice(0, 300)}\nacknowledged blob:\n${acknowledged.stdout.slice(0, 300)}${acknowledged.stderr}${context}`,
    );
  }
}
