import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { startTestServer, type TestServer } from '../../helpers/test-server.js';
import { gitIn } from '../../helpers/temp-vault.js';

describe('git clone of a vault through the running server', function () {
  this.timeout(60_000);
  let server: TestServer;
  let aliceKey: string;

  // One server: neither test changes alice's vault (the push is refused).
  before(async () => {
    server = await startTestServer();
    aliceKey = await server.key('alice', 'write');
    for (let i = 0; i < 12; i++)
      await server.api('/vault/page', { method: 'POST', key: aliceKey, json: { path: `notes/n${i}.md`, content: `note ${i}` } });
    await server.api('/vault/proposals', {
      method: 'POST',
      key: aliceKey,
      json: { title: 'internal', rationale: 'r', changes: [{ path: 'notes/p.md', content: 'x' }] },
    });
  });
  after(() => server.stop());

  const cloneUrl = (key: string) => server.url.replace('http://', `http://anyone:${key}@`) + '/vault.git';
  // Async: the server answering the clone runs in this very process.
  const git = (args: string[], cwd?: string) =>
    new Promise<{ status: number; stdout: string; stderr: string }>((resolve) => {
      execFile('git', args, { cwd, encoding: 'utf8', env: { ...process.env, GIT_TERMINAL_PROMPT: '0' } }, (err, stdout, stderr) => {
        resolve({ status: err ? Number((err as { code?: number }).code ?? 1) || 1 : 0, stdout, stderr });
      });
    });
  const clone = (key: string, dest: string) => git(['clone', '-q', cloneUrl(key), dest]);

  it('clones every page with a read key, passes git fsck --strict, hides internal refs and refuses a push with that key', async () => {
    const readKey = await server.key('alice', 'read');
    const dest = join(server.dataDir, 'clone');
    const result = await clone(readKey, dest);
    expect(result.status, result.stderr).to.equal(0);
    expect(gitIn(dest, 'ls-files', 'notes').trim().split('\n')).to.have.length(12);
    gitIn(dest, 'fsck', '--strict');
    const remote = await git(['ls-remote', cloneUrl(readKey)]);
    expect(remote.stdout).to.include('refs/heads/main');
    expect(remote.stdout).not.to.include('refs/quire');
    gitIn(dest, '-c', 'user.name=t', '-c', 'user.email=t@x', 'commit', '-q', '--allow-empty', '-m', 'nope');
    const push = await git(['push', 'origin', 'HEAD:main'], dest);
    expect(push.status).to.not.equal(0);
    expect(push.stderr).to.match(/403/);
  });

  it('gives another user their own vault, never this one, and refuses bad keys and restricted agents', async () => {
    const bobKey = await server.key('bob', 'read');
    const bobDest = join(server.dataDir, 'bob');
    expect((await clone(bobKey, bobDest)).status).to.equal(0);
    expect(gitIn(bobDest, 'log', '--all', '--format=%s')).not.to.include('notes/n');

    const bad = await clone('quire_wrong', join(server.dataDir, 'bad'));
    expect(bad.status).to.not.equal(0);
    expect(bad.stderr).to.match(/Authentication failed|401/);
    const res = await fetch(`${server.url}/vault.git/info/refs?service=git-upload-pack`);
    expect(res.status).to.equal(401);
    expect(res.headers.get('www-authenticate')).to.equal('Basic realm="quire"');

    await server.services.agents.put('alice', 'proj', { mode: 'read', read: ['projects/'] });
    const agentKey = await server.key('alice', 'read', { agent: 'proj', name: 'proj-key' });
    const agent = await clone(agentKey, join(server.dataDir, 'agent'));
    expect(agent.status).to.not.equal(0);
    expect(agent.stderr).to.match(/403|whole vault/);
  });
});
