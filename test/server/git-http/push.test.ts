import { expect } from 'chai';
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { pktLine } from '../../../server/git-http/git-service.js';
import { hooksFolder } from '../../../server/git-http/receive-pack.js';
import { gitIn } from '../../helpers/temp-vault.js';
import { AUTHOR, git, remoteUrl } from './git-client.js';
import { pushSetupPerTest } from './push-setup.js';

describe('git push to a vault through the running server: what it takes and what it refuses', function () {
  this.timeout(60_000);
  const p = pushSetupPerTest();

  it('takes a fast-forward push: the page is readable, searchable, in the change feed and the folder, and git status there is clean', async () => {
    const before = p.head();
    await p.commitFile('notes/b.md', '# Bravo\n\nzanzibarite in the pushed page\n');
    const result = await p.push('HEAD:main');
    expect(result.status, result.stderr).to.equal(0);
    expect(p.head()).to.equal(gitIn(p.client, 'rev-parse', 'HEAD').trim());
    expect(readFileSync(join(p.vaultDir, 'notes/b.md'), 'utf8')).to.include('zanzibarite');
    expect(gitIn(p.vaultDir, 'status', '--porcelain')).to.equal('');

    const page = await p.server.api('/vault/page/notes/b.md', { key: p.key });
    expect(page.status).to.equal(200);
    expect((await page.json()).content).to.include('zanzibarite');
    const found = await (await p.server.api('/vault/search?q=zanzibarite', { key: p.key })).json();
    expect(found.results.map((r: { path: string }) => r.path)).to.include('notes/b.md');
    expect(gitIn(p.vaultDir, 'log', '-1', '--format=%an <%ae>').trim()).to.equal('Pat Pusher <pat@example.com>');
    const feed = await (await p.server.api(`/vault/changes?since=${before}`, { key: p.key })).json();
    expect(feed.changes.map((c: { commit: string; actor: string }) => [c.commit, c.actor])).to.deep.equal([[p.head(), 'Pat Pusher']]);
    expect(feed.changes[0].paths.map((p: { path: string }) => p.path)).to.deep.equal(['notes/b.md']);
  });

  it('takes a push of 150 pages, which git keeps as a pack, and serves every page from it', async () => {
    for (let i = 0; i < 150; i++) writeFileSync(join(p.client, `notes/many-${i}.md`), `page ${i} quokkaberry\n`);
    gitIn(p.client, 'add', 'notes');
    gitIn(p.client, ...AUTHOR, 'commit', '-q', '-m', 'many');
    const result = await p.push('HEAD:main');
    expect(result.status, result.stderr).to.equal(0);
    expect(readdirSync(join(p.vaultDir, '.git/objects/pack')).some((f) => f.endsWith('.pack'))).to.equal(true);
    for (const i of [0, 77, 149]) {
      const page = await p.server.api(`/vault/page/notes/many-${i}.md`, { key: p.key });
      expect(page.status).to.equal(200);
      expect((await page.json()).content).to.equal(`page ${i} quokkaberry\n`);
    }
    const found = await (await p.server.api('/vault/search?q=quokkaberry&limit=100', { key: p.key })).json();
    expect(found.results).to.have.length(100);
    const written = await p.server.api('/vault/page', {
      method: 'POST',
      key: p.key,
      json: { path: 'notes/many-0.md', content: 'after the pack' },
    });
    expect(written.status, await written.clone().text()).to.equal(200);
  });

  it('refuses a push that is not a fast-forward ("fetch first"), with --force too', async () => {
    await p.server.api('/vault/page', { method: 'POST', key: p.key, json: { path: 'notes/server.md', content: 'written over REST' } });
    const before = p.head();
    await p.commitFile('notes/b.md', 'bravo');
    const plain = await p.push('HEAD:main');
    expect(plain.status).to.not.equal(0);
    expect(plain.stderr).to.include('fetch first');
    const forced = await p.push('--force', 'HEAD:main');
    expect(forced.status).to.not.equal(0);
    expect(forced.stderr).to.match(/non-fast-forward/);
    expect(p.head()).to.equal(before);
    expect(existsSync(join(p.vaultDir, 'notes/b.md'))).to.equal(false);

    const pulled = await git([...AUTHOR, 'pull', '-q', '--no-rebase', 'origin', 'main'], p.client);
    expect(pulled.status, pulled.stderr).to.equal(0);
    expect((await p.push('HEAD:main')).status).to.equal(0);
    expect(readFileSync(join(p.vaultDir, 'notes/server.md'), 'utf8')).to.equal('written over REST');
  });

  it('refuses every ref but the branch (other branches, tags, refs/quire) and deleting the branch', async () => {
    const before = p.head();
    await p.commitFile('notes/b.md', 'bravo');
    gitIn(p.client, 'tag', 'v1');
    for (const args of [['HEAD:refs/heads/other'], ['v1'], ['HEAD:refs/quire/proposals/x'], [':main'], ['--delete', 'main']]) {
      const result = await p.push(...args);
      expect(result.status, args.join(' ')).to.not.equal(0);
      expect(result.stderr, args.join(' ')).to.match(/hidden ref|deletion prohibited|deny deleting/);
    }
    expect(gitIn(p.vaultDir, 'for-each-ref', '--format=%(refname)', 'refs/heads', 'refs/tags').trim()).to.equal('refs/heads/main');
    expect(p.head()).to.equal(before);
  });

  it('refuses read keys and agent-bound keys with a message git shows', async () => {
    await p.commitFile('notes/b.md', 'bravo');
    const before = p.head();
    const readKey = await p.server.key('alice', 'read');
    gitIn(p.client, 'remote', 'set-url', 'origin', remoteUrl(p.server.url, readKey));
    const read = await p.push('HEAD:main');
    expect(read.status).to.not.equal(0);
    expect(read.stderr).to.match(/403/);
    const res = await fetch(`${p.server.url}/vault.git/info/refs?service=git-receive-pack`, {
      headers: { authorization: `Bearer ${readKey}` },
    });
    expect(res.status).to.equal(403);
    expect(await res.text()).to.match(/write scope/);

    await p.server.services.agents.put('alice', 'keeper', { mode: 'write', read: [''], write: [''] });
    const agentKey = await p.server.key('alice', 'write', { agent: 'keeper', name: 'keeper-key' });
    gitIn(p.client, 'remote', 'set-url', 'origin', remoteUrl(p.server.url, agentKey));
    expect((await p.push('HEAD:main')).status).to.not.equal(0);
    const agent = await fetch(`${p.server.url}/vault.git/info/refs?service=git-receive-pack`, {
      headers: { authorization: `Bearer ${agentKey}` },
    });
    expect(agent.status).to.equal(403);
    expect(await agent.text()).to.match(/owner only/);
    expect(p.head()).to.equal(before);
  });

  it('reports X-RateLimit-* on clone and push responses, counted in the sync bucket', async () => {
    const auth = { authorization: `Bearer ${p.key}` };
    const responses = [
      await fetch(`${p.server.url}/vault.git/info/refs?service=git-upload-pack`, { headers: auth }),
      await fetch(`${p.server.url}/vault.git/git-upload-pack`, { method: 'POST', headers: auth, body: '0000' }),
      await fetch(`${p.server.url}/vault.git/info/refs?service=git-receive-pack`, { headers: auth }),
      await fetch(`${p.server.url}/vault.git/git-receive-pack`, { method: 'POST', headers: auth, body: '0000' }),
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

describe('the hooks git runs on a push', () => {
  it('are found in server/git-http/hooks from source and from dist/, and are executable (git skips a hook that is not)', () => {
    const source = hooksFolder();
    expect(hooksFolder(fileURLToPath(new URL('../../../dist/server/git-http/receive-pack.js', import.meta.url)))).to.equal(source);
    expect(source).to.equal(fileURLToPath(new URL('../../../server/git-http/hooks', import.meta.url)));
    for (const hook of ['pre-receive', 'push-to-checkout']) expect(statSync(join(source, hook)).mode & 0o111, hook).to.equal(0o111);
  });
});
