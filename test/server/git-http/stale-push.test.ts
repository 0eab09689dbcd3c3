import { expect } from 'chai';
import { existsSync, writeFileSync } from 'node:fs';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { startTestServer, type TestServer } from '../../helpers/test-server.js';
import { gitIn } from '../../helpers/temp-vault.js';
import { AUTHOR, git, isAncestor, remoteUrl } from './git-client.js';

describe('crash: a push whose advertisement went stale', function () {
  this.timeout(60_000);
  let server: TestServer;
  let proxy: Server | undefined;
  afterEach(async () => {
    await new Promise((resolve) => (proxy ? proxy.close(resolve) : resolve(undefined)));
    await server.stop();
  });

  // git push over smart HTTP is two requests: the ref advertisement, then the pack with the
  // old value the client saw. A REST write between them moves the branch; the push must then
  // be refused with the folder untouched, never leave the folder at the pushed tree.
  it('keeps a REST write that lands between the advertisement and the pack (no deletion by the watcher)', async () => {
    // A quick watcher (settled after 100 + 50 ms instead of 300 + 200) shortens the wait below.
    server = await startTestServer({ QUIRE_WATCH: 'true', QUIRE_WATCH_SETTLE_MS: '100', QUIRE_WATCH_STABLE_MS: '50' });
    const key = await server.key('carol', 'write');
    expect((await server.api('/vault/page', { method: 'POST', key, json: { path: 'seed.md', content: 'seed\n' } })).status).to.equal(201);
    const vault = (await server.services.vaults.get('carol')).dir;
    const target = new URL(server.url);
    let racer: { commit: string; hash: string } | undefined;
    // A pass-through proxy that makes one REST write just before forwarding the pack.
    proxy = createServer((req, res) => {
      const forward = () => {
        const out = request(
          { host: target.hostname, port: target.port, path: req.url, method: req.method, headers: req.headers },
          (answer) => {
            res.writeHead(answer.statusCode!, answer.headers);
            answer.pipe(res);
          },
        );
        req.pipe(out);
      };
      if (req.method === 'POST' && req.url?.endsWith('/git-receive-pack') && !racer) {
        void server
          .api('/vault/page', { method: 'POST', key, json: { path: 'rest/racer.md', content: 'the racing write\n' } })
          .then(async (r) => {
            const body = await r.json();
            if (r.ok) racer = { commit: body.commit, hash: body.hash };
          })
          .finally(forward);
      } else forward();
    });
    await new Promise<void>((resolve) => proxy!.listen(0, '127.0.0.1', resolve));
    const { port } = proxy.address() as AddressInfo;
    const client = join(server.dataDir, 'client');
    const cloned = await git(['clone', '-q', remoteUrl(`http://127.0.0.1:${port}`, key), client], server.dataDir);
    expect(cloned.status, cloned.stderr).to.equal(0);
    writeFileSync(join(client, 'pushed.md'), 'pushed\n');
    await git(['add', '-A'], client);
    await git([...AUTHOR, 'commit', '-q', '-m', 'pushed'], client);
    const pushedResult = await git(['push', 'origin', 'HEAD:main'], client);
    expect(racer, 'the racing write was acknowledged').to.not.equal(undefined);

    await sleep(1_000); // the watcher's settle and stable times, several times over
    const head = gitIn(vault, 'rev-parse', 'main').trim();
    const context = `\npush: ${pushedResult.status} ${pushedResult.stderr.trim()}\ngit log:\n${gitIn(vault, 'log', '--format=%h %an %s', '--name-status', '-5', 'main')}`;
    expect(isAncestor(vault, racer!.commit, head), context).to.equal(true);
    expect(gitIn(vault, 'ls-tree', '-r', head), `the acknowledged write rest/racer.md at main${context}`).to.include(
      `blob ${racer!.hash}\trest/racer.md\n`,
    );
    expect(existsSync(join(vault, 'rest/racer.md')), `rest/racer.md in the folder${context}`).to.equal(true);
    expect(gitIn(vault, 'status', '--porcelain'), `git status${context}`).to.equal('');
  });
});
