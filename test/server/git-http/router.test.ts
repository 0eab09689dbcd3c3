import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { gzipSync } from 'node:zlib';
import express from 'express';
import { QuireError } from '../../../vault-store/errors.js';
import { gitKey } from '../../../server/git-http/credentials.js';
import { gitHttpRouter, type GitHttpOptions } from '../../../server/git-http/router.js';
import { tempDir } from '../../helpers/temp-dir.js';
import { tempVault, testAuthor } from '../../helpers/temp-vault.js';

const run = promisify(execFile);
const KEY = 'qk_test_good';
type TempVault = Awaited<ReturnType<typeof tempVault>>;

/** system git that never prompts, run in `cwd`. */
function git(cwd: string, ...args: string[]) {
  return run('git', args, { cwd, env: { ...process.env, GIT_TERMINAL_PROMPT: '0', GIT_ASKPASS: '' } });
}

async function listen(options: Partial<GitHttpOptions> & Pick<GitHttpOptions, 'resolve'>): Promise<{ server: Server; base: string }> {
  const app = express();
  app.use(gitHttpRouter(options));
  const server = app.listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  return { server, base: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

describe('git smart HTTP (read-only)', () => {
  let v: TempVault;
  let tmp: ReturnType<typeof tempDir>;
  let server: Server;
  let base: string;

  beforeEach(async () => {
    v = await tempVault({ 'a.md': '# A\n', 'notes/b.md': 'b', 'Ünï/c d.md': 'c' });
    await v.vault.mutate(testAuthor, 'Attach', () => [{ path: 'files/pic.png', content: new Uint8Array([137, 80, 78, 71, 0, 1, 2]) }]);
    tmp = tempDir('quire-clone-');
    ({ server, base } = await listen({
      resolve: async (req) => {
        if (gitKey(req.headers.authorization) !== KEY) throw new QuireError('UNAUTHENTICATED', 'Unknown or revoked API key');
        return { gitdir: v.vault.repo.gitdir };
      },
    }));
  });
  afterEach(async () => {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
    v.cleanup();
    tmp.cleanup();
  });

  for (const version of ['2', '0']) {
    it(`clones a loose-object vault with Basic auth (protocol v${version}); fsck --strict passes`, async () => {
      const url = base.replace('http://', `http://anyone:${KEY}@`);
      await git(tmp.path, '-c', `protocol.version=${version}`, 'clone', '-q', `${url}/vault.git`, 'clone');
      const clone = join(tmp.path, 'clone');
      await git(clone, 'fsck', '--strict');
      expect((await git(clone, 'rev-parse', 'HEAD')).stdout.trim()).to.equal(v.vault.head);
      expect(readFileSync(join(clone, 'Ünï/c d.md'), 'utf8')).to.equal('c');
      expect([...readFileSync(join(clone, 'files/pic.png'))]).to.deep.equal([137, 80, 78, 71, 0, 1, 2]);
    });
  }

  it('accepts the key as a Bearer header and fetches new commits', async () => {
    const header = `http.extraHeader=Authorization: Bearer ${KEY}`;
    await git(tmp.path, '-c', header, 'clone', '-q', `${base}/vault.git`, 'clone');
    const clone = join(tmp.path, 'clone');
    await v.pages.write(testAuthor, { path: 'later.md', content: 'new' });
    await git(clone, '-c', header, 'pull', '-q', '--ff-only');
    expect(readFileSync(join(clone, 'later.md'), 'utf8')).to.equal('new');
  });

  it('refuses push with 403 and a message git shows', async () => {
    const url = `${base.replace('http://', `http://k:${KEY}@`)}/vault.git`;
    await git(tmp.path, 'clone', '-q', url, 'clone');
    const clone = join(tmp.path, 'clone');
    await git(clone, '-c', 'user.name=t', '-c', 'user.email=t@x', 'commit', '-q', '--allow-empty', '-m', 'x');
    const err = await git(clone, 'push', 'origin', 'HEAD:main').catch((e) => e);
    expect(err.code).to.not.equal(0);
    expect(err.stderr).to.match(/403/);
    const res = await fetch(`${base}/vault.git/git-receive-pack`, { method: 'POST', headers: { authorization: `Bearer ${KEY}` } });
    expect(res.status).to.equal(403);
    expect(await res.text()).to.match(/read-only/);
  });

  it('answers a wrong or missing key with 401 and a Basic challenge', async () => {
    for (const authorization of [undefined, `Basic ${Buffer.from('x:wrong').toString('base64')}`]) {
      const res = await fetch(`${base}/vault.git/info/refs?service=git-upload-pack`, { headers: authorization ? { authorization } : {} });
      expect(res.status).to.equal(401);
      expect(res.headers.get('www-authenticate')).to.equal('Basic realm="quire"');
      expect(await res.text()).to.match(/API key/);
    }
    const err = await git(tmp.path, 'clone', '-q', `${base.replace('http://', 'http://x:wrong@')}/vault.git`, 'c').catch((e) => e);
    expect(err.stderr).to.match(/Authentication failed|401/);
  });

  it('serves nothing but the smart protocol under /vault.git', async () => {
    const headers = { authorization: `Bearer ${KEY}` };
    for (const path of ['/vault.git/HEAD', '/vault.git/config', '/vault.git/objects/info/packs']) {
      expect((await fetch(`${base}${path}`, { headers })).status, path).to.equal(404);
    }
    expect((await fetch(`${base}/vault.git/info/refs`, { headers })).status).to.equal(403);
  });

  it('accepts a gzip request body (protocol v2 ls-refs)', async () => {
    const body = gzipSync(Buffer.from('0014command=ls-refs\n0000'));
    const res = await fetch(`${base}/vault.git/git-upload-pack`, {
      method: 'POST',
      body,
      headers: {
        authorization: `Bearer ${KEY}`,
        'content-type': 'application/x-git-upload-pack-request',
        'content-encoding': 'gzip',
        'git-protocol': 'version=2',
      },
    });
    expect(res.status).to.equal(200);
    expect(res.headers.get('content-type')).to.equal('application/x-git-upload-pack-result');
    expect(await res.text()).to.include(`${v.vault.head} refs/heads/main`);
  });

  it('stops git when the response closes, not when the request body ends', async () => {
    // A stand-in for git that records its pid and streams forever, ignoring its input.
    const fake = join(tmp.path, 'fake-git');
    const pidFile = join(tmp.path, 'pid');
    writeFileSync(fake, `#!/bin/sh\necho $$ > '${pidFile}'\nexec yes pack-data\n`, { mode: 0o755 });
    const streaming = await listen({ resolve: async () => ({ gitdir: v.vault.repo.gitdir }), gitBinary: fake });
    let pid = 0;
    try {
      const controller = new AbortController();
      const res = await fetch(`${streaming.base}/vault.git/git-upload-pack`, { method: 'POST', body: '0000', signal: controller.signal });
      const reader = res.body!.getReader();
      let received = 0;
      while (received < 1 << 20) received += (await reader.read()).value!.length;
      pid = Number(readFileSync(pidFile, 'utf8'));
      expect(alive(pid), 'still streaming after the body ended').to.equal(true);
      controller.abort();
      await waitFor(() => !alive(pid));
    } finally {
      // Whatever failed above, leave no stand-in running and no connection holding the server.
      if (pid && alive(pid)) process.kill(pid, 'SIGKILL');
      streaming.server.closeAllConnections();
      await new Promise((r) => streaming.server.close(r));
    }
  });

  it('answers 501 when git is not installed', async () => {
    const missing = await listen({ resolve: async () => ({ gitdir: v.vault.repo.gitdir }), gitBinary: join(tmp.path, 'no-such-git') });
    try {
      const res = await fetch(`${missing.base}/vault.git/info/refs?service=git-upload-pack`);
      expect(res.status).to.equal(501);
      expect(await res.text()).to.match(/git is not installed/);
    } finally {
      await new Promise((r) => missing.server.close(r));
    }
  });
});

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function waitFor(condition: () => boolean): Promise<void> {
  for (let i = 0; i < 100 && !condition(); i++) await new Promise((r) => setTimeout(r, 20));
  expect(condition()).to.equal(true);
}

describe('gitKey', () => {
  const basic = (s: string) => `Basic ${Buffer.from(s).toString('base64')}`;
  it('takes the password of Basic, the user name when the password is empty, or a Bearer token', () => {
    expect(gitKey(basic('anyone:qk_1'))).to.equal('qk_1');
    expect(gitKey(basic('qk_2:'))).to.equal('qk_2');
    expect(gitKey(basic('qk_3'))).to.equal('qk_3');
    expect(gitKey('Bearer qk_4')).to.equal('qk_4');
    expect(gitKey(undefined)).to.equal(undefined);
    expect(gitKey(basic(':'))).to.equal(undefined);
  });
});
