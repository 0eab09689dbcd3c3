import { expect } from 'chai';
import { execFile, execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { pktLine } from '../../../server/git-http/git-service.js';
import { hooksFolder } from '../../../server/git-http/receive-pack.js';
import { startTestServer, type TestServer } from '../../helpers/test-server.js';
import { gitIn } from '../../helpers/temp-vault.js';

const AUTHOR = ['-c', 'user.name=Pat Pusher', '-c', 'user.email=pat@example.com'];

describe('git push to a vault through the running server', function () {
  this.timeout(60_000);
  let server: TestServer;
  let key: string;
  let vaultDir: string;
  let client: string;

  // Async: the server answering git runs in this very process.
  const git = (args: string[], cwd?: string) =>
    new Promise<{ status: number; stdout: string; stderr: string }>((resolve) => {
      execFile('git', args, { cwd, encoding: 'utf8', env: { ...process.env, GIT_TERMINAL_PROMPT: '0' } }, (err, stdout, stderr) => {
        resolve({ status: err ? Number((err as { code?: number }).code ?? 1) || 1 : 0, stdout, stderr });
      });
    });
  const remote = (k: string) => server.url.replace('http://', `http://anyone:${k}@`) + '/vault.git';
  const commitFile = async (path: string, content: string | Buffer, message = `edit ${path}`) => {
    writeFileSync(join(client, path), content);
    gitIn(client, 'add', path);
    gitIn(client, ...AUTHOR, 'commit', '-q', '-m', message);
  };
  const push = (...args: string[]) => git(['push', 'origin', ...args], client);
  const head = () => gitIn(vaultDir, 'rev-parse', 'refs/heads/main').trim();
  const start = async (env: Record<string, string> = {}) => {
    server = await startTestServer(env);
    key = await server.key('alice', 'write');
    await server.api('/vault/page', { method: 'POST', key, json: { path: 'notes/a.md', content: 'alpha' } });
    vaultDir = (await server.services.vaults.get('alice')).dir;
    client = join(server.dataDir, 'client');
    const cloned = await git(['clone', '-q', remote(key), client]);
    expect(cloned.status, cloned.stderr).to.equal(0);
  };
  afterEach(async () => {
    if (vaultDir) gitIn(vaultDir, 'fsck', '--strict');
    await server.stop();
  });

  describe('with the folder watched', () => {
    beforeEach(() => start());

    it('takes a fast-forward push: the page is readable, searchable, in the change feed and the folder, and git status there is clean', async () => {
      const before = head();
      await commitFile('notes/b.md', '# Bravo\n\nzanzibarite in the pushed page\n');
      const result = await push('HEAD:main');
      expect(result.status, result.stderr).to.equal(0);
      expect(head()).to.equal(gitIn(client, 'rev-parse', 'HEAD').trim());
      expect(readFileSync(join(vaultDir, 'notes/b.md'), 'utf8')).to.include('zanzibarite');
      expect(gitIn(vaultDir, 'status', '--porcelain')).to.equal('');

      const page = await server.api('/vault/page/notes/b.md', { key });
      expect(page.status).to.equal(200);
      expect((await page.json()).content).to.include('zanzibarite');
      const found = await (await server.api('/vault/search?q=zanzibarite', { key })).json();
      expect(found.results.map((r: { path: string }) => r.path)).to.include('notes/b.md');
      expect(gitIn(vaultDir, 'log', '-1', '--format=%an <%ae>').trim()).to.equal('Pat Pusher <pat@example.com>');
      const feed = await (await server.api(`/vault/changes?since=${before}`, { key })).json();
      expect(feed.changes.map((c: { commit: string; actor: string }) => [c.commit, c.actor])).to.deep.equal([[head(), 'Pat Pusher']]);
      expect(feed.changes[0].paths.map((p: { path: string }) => p.path)).to.deep.equal(['notes/b.md']);
    });

    it('takes a push of 150 pages, which git keeps as a pack, and serves every page from it', async () => {
      for (let i = 0; i < 150; i++) writeFileSync(join(client, `notes/many-${i}.md`), `page ${i} quokkaberry\n`);
      gitIn(client, 'add', 'notes');
      gitIn(client, ...AUTHOR, 'commit', '-q', '-m', 'many');
      const result = await push('HEAD:main');
      expect(result.status, result.stderr).to.equal(0);
      expect(readdirSync(join(vaultDir, '.git/objects/pack')).some((f) => f.endsWith('.pack'))).to.equal(true);
      for (const i of [0, 77, 149]) {
        const page = await server.api(`/vault/page/notes/many-${i}.md`, { key });
        expect(page.status).to.equal(200);
        expect((await page.json()).content).to.equal(`page ${i} quokkaberry\n`);
      }
      const found = await (await server.api('/vault/search?q=quokkaberry&limit=100', { key })).json();
      expect(found.results).to.have.length(100);
      const written = await server.api('/vault/page', {
        method: 'POST',
        key,
        json: { path: 'notes/many-0.md', content: 'after the pack' },
      });
      expect(written.status, await written.clone().text()).to.equal(200);
    });

    it('refuses a push that is not a fast-forward ("fetch first"), with --force too', async () => {
      await server.api('/vault/page', { method: 'POST', key, json: { path: 'notes/server.md', content: 'written over REST' } });
      const before = head();
      await commitFile('notes/b.md', 'bravo');
      const plain = await push('HEAD:main');
      expect(plain.status).to.not.equal(0);
      expect(plain.stderr).to.include('fetch first');
      const forced = await push('--force', 'HEAD:main');
      expect(forced.status).to.not.equal(0);
      expect(forced.stderr).to.match(/non-fast-forward/);
      expect(head()).to.equal(before);
      expect(existsSync(join(vaultDir, 'notes/b.md'))).to.equal(false);

      const pulled = await git([...AUTHOR, 'pull', '-q', '--no-rebase', 'origin', 'main'], client);
      expect(pulled.status, pulled.stderr).to.equal(0);
      expect((await push('HEAD:main')).status).to.equal(0);
      expect(readFileSync(join(vaultDir, 'notes/server.md'), 'utf8')).to.equal('written over REST');
    });

    it('refuses every ref but the branch (other branches, tags, refs/quire) and deleting the branch', async () => {
      const before = head();
      await commitFile('notes/b.md', 'bravo');
      gitIn(client, 'tag', 'v1');
      for (const args of [['HEAD:refs/heads/other'], ['v1'], ['HEAD:refs/quire/proposals/x'], [':main'], ['--delete', 'main']]) {
        const result = await push(...args);
        expect(result.status, args.join(' ')).to.not.equal(0);
        expect(result.stderr, args.join(' ')).to.match(/hidden ref|deletion prohibited|deny deleting/);
      }
      expect(gitIn(vaultDir, 'for-each-ref', '--format=%(refname)', 'refs/heads', 'refs/tags').trim()).to.equal('refs/heads/main');
      expect(head()).to.equal(before);
    });

    it('refuses read keys and agent-bound keys with a message git shows', async () => {
      await commitFile('notes/b.md', 'bravo');
      const before = head();
      const readKey = await server.key('alice', 'read');
      gitIn(client, 'remote', 'set-url', 'origin', remote(readKey));
      const read = await push('HEAD:main');
      expect(read.status).to.not.equal(0);
      expect(read.stderr).to.match(/403/);
      const res = await fetch(`${server.url}/vault.git/info/refs?service=git-receive-pack`, {
        headers: { authorization: `Bearer ${readKey}` },
      });
      expect(res.status).to.equal(403);
      expect(await res.text()).to.match(/write scope/);

      await server.services.agents.put('alice', 'keeper', { mode: 'write', read: [''], write: [''] });
      const agentKey = await server.key('alice', 'write', { agent: 'keeper', name: 'keeper-key' });
      gitIn(client, 'remote', 'set-url', 'origin', remote(agentKey));
      expect((await push('HEAD:main')).status).to.not.equal(0);
      const agent = await fetch(`${server.url}/vault.git/info/refs?service=git-receive-pack`, {
        headers: { authorization: `Bearer ${agentKey}` },
      });
      expect(agent.status).to.equal(403);
      expect(await agent.text()).to.match(/owner only/);
      expect(head()).to.equal(before);
    });

    it('refuses a commit whose tree holds .git, .., an absolute or a slashed name: ref and folder unchanged', async () => {
      const before = head();
      const files = listFiles(vaultDir);
      const blob = gitIn(client, 'hash-object', '-w', 'notes/a.md').trim();
      const sub = execTree(client, `100644 blob ${blob}\tconfig\n`);
      const raw = (name: string) => Buffer.concat([Buffer.from(`100644 ${name}\0`), Buffer.from(blob, 'hex')]);
      const trees = [
        execTree(client, `040000 tree ${sub}\t.git\n`),
        execTree(client, `040000 tree ${sub}\t..\n`),
        execTree(client, `040000 tree ${sub}\t.GIT\n`),
        literalTree(client, raw('/etc-passwd')),
        literalTree(client, raw('notes/../../escape.md')),
      ];
      for (const tree of trees) {
        const commit = gitIn(client, ...AUTHOR, 'commit-tree', tree, '-p', 'HEAD', '-m', 'bad').trim();
        const result = await push(`${commit}:refs/heads/main`);
        expect(result.status, tree).to.not.equal(0);
        expect(result.stderr, tree).to.match(/hasDotgit|hasDotdot|fullPathname|unpacker error/);
      }
      expect(head()).to.equal(before);
      expect(listFiles(vaultDir)).to.deep.equal(files);
    });

    it('refuses malformed pack data and bad gzip, ref unchanged', async () => {
      const before = head();
      const auth = { authorization: `Bearer ${key}`, 'content-type': 'application/x-git-receive-pack-request' };
      const command = pktLine(`${before} ${'1'.repeat(40)} refs/heads/main\0report-status\n`) + '0000';
      const res = await fetch(`${server.url}/vault.git/git-receive-pack`, {
        method: 'POST',
        headers: auth,
        body: Buffer.concat([Buffer.from(command), Buffer.from('PACK\0\0\0\x02\0\0\0\x01'), randomBytes(200)]),
      });
      expect(res.status).to.equal(200);
      const report = await res.text();
      expect(report).to.match(/unpack (?!ok)/);
      expect(report).to.match(/ng refs\/heads\/main/);
      const badGzip = await fetch(`${server.url}/vault.git/git-receive-pack`, {
        method: 'POST',
        headers: { ...auth, 'content-encoding': 'gzip' },
        body: Buffer.from('not gzip at all'),
      });
      expect(badGzip.status).to.equal(400);
      const emptyGzip = await fetch(`${server.url}/vault.git/git-receive-pack`, {
        method: 'POST',
        headers: { ...auth, 'content-encoding': 'gzip' },
        body: gzipSync('0000'),
      });
      expect(emptyGzip.status).to.equal(200);
      expect(head()).to.equal(before);
    });

    it('reports X-RateLimit-* on clone and push responses, counted in the sync bucket', async () => {
      const auth = { authorization: `Bearer ${key}` };
      const responses = [
        await fetch(`${server.url}/vault.git/info/refs?service=git-upload-pack`, { headers: auth }),
        await fetch(`${server.url}/vault.git/git-upload-pack`, { method: 'POST', headers: auth, body: '0000' }),
        await fetch(`${server.url}/vault.git/info/refs?service=git-receive-pack`, { headers: auth }),
        await fetch(`${server.url}/vault.git/git-receive-pack`, { method: 'POST', headers: auth, body: '0000' }),
      ];
      const remaining = responses.map((res) => {
        expect(res.status).to.equal(200);
        expect(res.headers.get('x-ratelimit-bucket')).to.equal('sync');
        expect(res.headers.get('x-ratelimit-limit')).to.equal('600');
        return Number(res.headers.get('x-ratelimit-remaining'));
      });
      expect(remaining.slice(1).map((n, i) => remaining[i] - n)).to.deep.equal([1, 1, 1]);
      const advertisement = Buffer.from(await responses[2].arrayBuffer()).toString('latin1');
      expect(advertisement.startsWith(`${pktLine('# service=git-receive-pack\n')}0000`)).to.equal(true);
      expect(advertisement).to.include('refs/heads/main');
      expect(responses[2].headers.get('content-type')).to.equal('application/x-git-receive-pack-advertisement');
      expect(responses[3].headers.get('content-type')).to.equal('application/x-git-receive-pack-result');
    });
  });

  describe('with the folder not watched (edits stay uncommitted)', () => {
    beforeEach(() => start({ QUIRE_WATCH: 'false' }));

    it('refuses a push changing a file edited in the folder, with a clear message; other edits do not matter', async () => {
      writeFileSync(join(vaultDir, 'notes/a.md'), 'edited in the folder');
      writeFileSync(join(vaultDir, 'notes/local.md'), 'new in the folder');
      const before = head();
      await commitFile('notes/a.md', 'alpha from the laptop');
      const refused = await push('HEAD:main');
      expect(refused.status).to.not.equal(0);
      expect(refused.stderr).to.include('Quire: the vault folder has uncommitted edits to files this push changes');
      expect(head()).to.equal(before);
      expect(readFileSync(join(vaultDir, 'notes/a.md'), 'utf8')).to.equal('edited in the folder');

      // A push of other files goes through and leaves the folder's edits alone.
      gitIn(client, 'reset', '-q', '--hard', 'HEAD~1');
      await commitFile('notes/c.md', 'charlie');
      const pushed = await push('HEAD:main');
      expect(pushed.status, pushed.stderr).to.equal(0);
      expect(readFileSync(join(vaultDir, 'notes/c.md'), 'utf8')).to.equal('charlie');
      expect(readFileSync(join(vaultDir, 'notes/a.md'), 'utf8')).to.equal('edited in the folder');
      expect(readFileSync(join(vaultDir, 'notes/local.md'), 'utf8')).to.equal('new in the folder');
      expect(gitIn(vaultDir, 'status', '--porcelain').split('\n').filter(Boolean).sort()).to.deep.equal([
        ' M notes/a.md',
        '?? notes/local.md',
      ]);
    });

    it('answers 503 with Retry-After while a merge is under way in the folder, and takes the push once it ends', async () => {
      await commitFile('notes/b.md', 'bravo');
      const before = head();
      writeFileSync(join(vaultDir, '.git', 'MERGE_HEAD'), `${before}\n`);
      const refused = await push('HEAD:main');
      expect(refused.status).to.not.equal(0);
      expect(refused.stderr).to.match(/503/);
      const res = await fetch(`${server.url}/vault.git/git-receive-pack`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}` },
        body: '0000',
      });
      expect(res.status).to.equal(503);
      expect(res.headers.get('retry-after')).to.match(/^\d+$/);
      expect(await res.text()).to.match(/merge is in progress/);
      expect(head()).to.equal(before);
      rmSync(join(vaultDir, '.git', 'MERGE_HEAD'));
      const pushed = await push('HEAD:main');
      expect(pushed.status, pushed.stderr).to.equal(0);
    });

    it('refuses a push adding a file where an uncommitted one stands in the folder', async () => {
      writeFileSync(join(vaultDir, 'notes/b.md'), 'mine, not committed yet');
      const before = head();
      await commitFile('notes/b.md', 'theirs');
      const refused = await push('HEAD:main');
      expect(refused.stderr).to.include('Quire: the vault folder has uncommitted edits');
      expect(head()).to.equal(before);
      expect(readFileSync(join(vaultDir, 'notes/b.md'), 'utf8')).to.equal('mine, not committed yet');
    });
  });

  describe('over the size limit', () => {
    // The smallest page limit (1 KiB) makes the push limit 6 × 1 KiB + 64 KiB.
    beforeEach(() => start({ QUIRE_MAX_PAGE_BYTES: '1024' }));

    it('refuses a push larger than the limit (413 before git runs), ref and folder unchanged', async () => {
      const before = head();
      await commitFile('big.bin', randomBytes(200_000));
      const result = await push('HEAD:main');
      expect(result.status).to.not.equal(0);
      expect(result.stderr).to.match(/413/);
      expect(head()).to.equal(before);
      expect(existsSync(join(vaultDir, 'big.bin'))).to.equal(false);

      const res = await fetch(`${server.url}/vault.git/git-receive-pack`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}` },
        body: randomBytes(6 * 1024 + 65536 + 1),
      });
      expect(res.status).to.equal(413);
      expect(await res.text()).to.match(/larger than this server's limit of 71680 bytes/);
    });
  });
});

describe('the hooks git runs on a push', () => {
  it('are found in server/git-http/hooks from source and from dist/, and are executable (git skips a hook that is not)', () => {
    const source = hooksFolder();
    expect(hooksFolder(fileURLToPath(new URL('../../../dist/server/git-http/receive-pack.js', import.meta.url)))).to.equal(source);
    expect(source).to.equal(fileURLToPath(new URL('../../../server/git-http/hooks', import.meta.url)));
    for (const hook of ['pre-receive', 'push-to-checkout']) expect(statSync(join(source, hook)).mode & 0o111, hook).to.equal(0o111);
  });
});

/** Every file and folder under `dir` but .git, with its size. */
function listFiles(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((path) => path !== '.git' && !path.startsWith(`.git${sep}`))
    .map((path) => `${path} ${statSync(join(dir, path)).size}`)
    .sort();
}

/** A tree object from `git mktree` lines. */
function execTree(cwd: string, lines: string): string {
  return execFileSyncInput(cwd, ['mktree'], lines);
}

/** A tree object written as is (`hash-object --literally`), for names `git mktree` refuses. */
function literalTree(cwd: string, body: Buffer): string {
  return execFileSyncInput(cwd, ['hash-object', '--literally', '-t', 'tree', '-w', '--stdin'], body);
}

function execFileSyncInput(cwd: string, args: string[], input: string | Buffer): string {
  return execFileSync('git', args, { cwd, input, encoding: 'utf8' }).trim();
}
