import { expect } from 'chai';
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startTestServer, type TestServer } from '../../helpers/test-server.js';
import { gitIn, testAuthor } from '../../helpers/temp-vault.js';
import { vaultDir } from '../../../server/vaults/user-vault.js';
import { waitFor } from '../../vault-store/watcher/helpers.js';

function unzipTo(zip: string, dir: string): string[] {
  mkdirSync(dir, { recursive: true });
  execFileSync('unzip', ['-q', zip, '-d', dir]);
  return execFileSync('unzip', ['-Z1', zip], { encoding: 'utf8' })
    .trim()
    .split('\n')
    .filter((l) => !l.endsWith('/'))
    .sort();
}

describe('REST export', function () {
  this.timeout(60_000);
  let server: TestServer;
  let key: string;

  beforeEach(async () => {
    server = await startTestServer();
    key = await server.key('alice', 'write', { plan: 'pro' });
  });
  afterEach(() => server.stop());

  it('streams the zip of one commit, equal to git archive of that commit, while writes land', async () => {
    // The pages to export, in one commit (sixty API writes took seconds, and are tested elsewhere).
    const { vault } = await server.services.vaults.get('alice');
    await vault.mutate(testAuthor, 'Seed', () =>
      Array.from({ length: 60 }, (_, i) => ({ path: `f${i % 6}/p${i}.md`, content: new TextEncoder().encode(`page ${i}\n`.repeat(50)) })),
    );
    const writes = Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        server.api('/vault/page', { method: 'POST', key, json: { path: `late/${i}.md`, content: `late ${i}` } }),
      ),
    );
    const res = await server.api('/vault/export', { key });
    expect(res.status).to.equal(200);
    expect(res.headers.get('content-type')).to.equal('application/zip');
    const commit = res.headers.get('x-quire-commit')!;
    expect(res.headers.get('content-disposition')).to.equal(`attachment; filename="vault-alice-${commit.slice(0, 7)}.zip"`);
    const zip = join(server.dataDir, 'export.zip');
    writeFileSync(zip, Buffer.from(await res.arrayBuffer()));
    await writes;

    const repo = vaultDir(server.dataDir, 'alice');
    const reference = join(server.dataDir, 'reference.zip');
    gitIn(repo, 'archive', '--format=zip', '-o', reference, commit);
    const ours = unzipTo(zip, join(server.dataDir, 'ours'));
    const theirs = unzipTo(reference, join(server.dataDir, 'theirs'));
    expect(ours).to.deep.equal(theirs);
    expect(ours.some((p) => p.startsWith('.git/'))).to.equal(false);
    for (const file of ours) {
      expect(readFileSync(join(server.dataDir, 'ours', file)).equals(readFileSync(join(server.dataDir, 'theirs', file))), file).to.equal(
        true,
      );
    }
    expect(res.headers.get('x-ratelimit-bucket')).to.equal('expensive');
  });

  it('works with a read key and stops when the client disconnects', async () => {
    // A large vault in one step: the files land in the folder and the watcher commits them together.
    const big = join(vaultDir(server.dataDir, 'alice'), 'big');
    mkdirSync(big, { recursive: true });
    for (let i = 0; i < 200; i++) writeFileSync(join(big, `${i}.md`), `${i} `.repeat(5000));
    await waitFor('the big pages committed', async () => {
      const { pages } = await (await server.api('/vault/pages?prefix=big&limit=1000', { key })).json();
      return pages.length === 200 || undefined;
    });
    const reader = await server.key('alice', 'read');
    const controller = new AbortController();
    const res = await server.api('/vault/export', { key: reader, signal: controller.signal });
    expect(res.status).to.equal(200);
    const body = res.body!.getReader();
    await body.read();
    controller.abort();
    // The server keeps serving after an aborted download.
    const after = await server.api('/vault/pages?limit=1', { key: reader });
    expect(after.status).to.equal(200);
  });
});
