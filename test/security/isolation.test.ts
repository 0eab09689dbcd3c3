import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { vaultDir } from '../../server/vaults/user-vault.js';
import { tempDir } from '../helpers/temp-dir.js';
import { gitIn } from '../helpers/temp-vault.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';
import { call, mcpClient } from '../server/mcp/mcp-client.js';

const run = promisify(execFile);
const MARKER = 'bob-private-marker-7731';

/**
 * Each user's vault is theirs alone, whatever the path spelling: traversal written raw,
 * percent-encoded once or twice, or with backslashes, on every surface that takes a path.
 */
const TRAVERSALS = [
  '../bob/secret.md',
  '../../vaults/bob/secret.md',
  'notes/../../bob/secret.md',
  '..\\bob\\secret.md',
  '/etc/passwd',
  `${'../'.repeat(12)}etc/passwd`,
];
/** In a URL a percent-encoded "/" or "." must not become a separator or a parent step either. */
const URL_TRAVERSALS = [
  ...TRAVERSALS,
  '..%2Fbob%2Fsecret.md',
  '%2e%2e/bob/secret.md',
  '%2e%2e%2fbob%2fsecret.md',
  '%252e%252e%252fbob%252fsecret.md',
  '..%5Cbob%5Csecret.md',
];

describe("attack: one user reaching another user's vault", () => {
  let server: TestServer;
  let alice: string;
  let bob: string;

  before(async () => {
    server = await startTestServer();
    alice = await server.key('alice', 'write');
    bob = await server.key('bob', 'write');
    const res = await server.api('/vault/page', {
      method: 'POST',
      key: bob,
      json: { path: 'secret.md', content: `# Secret\n${MARKER}\n` },
    });
    expect(res.status).to.equal(201);
  });
  after(() => server.stop());

  const heads = () => ['alice', 'bob'].map((u) => gitIn(vaultDir(server.dataDir, u), 'rev-parse', 'main').trim());

  it('refuses traversal in page URLs and bodies on REST, and never answers with the other vault', async () => {
    const before = heads();
    const attempts = [
      ...URL_TRAVERSALS.flatMap(
        (path) =>
          [
            ['GET', `/vault/page/${path}`],
            ['DELETE', `/vault/page/${path}`],
            ['GET', `/vault/backlinks/${path}`],
            ['GET', `/vault/outline/${path}`],
          ] as const,
      ),
      ...TRAVERSALS.flatMap(
        (path) =>
          [
            ['POST', '/vault/page', { path, content: 'x' }],
            ['POST', '/vault/append', { path, text: 'x' }],
            ['POST', '/vault/move', { from: 'x.md', to: path }],
            ['POST', '/vault/pages/batch', { paths: [path] }],
          ] as const,
      ),
    ];
    for (const [method, url, json] of attempts) {
      {
        const res = await server.api(url, { method, key: alice, ...(json ? { json } : {}) });
        const text = await res.text();
        expect(res.status, `${method} ${url} ${JSON.stringify(json)}`).to.be.oneOf([400, 404]);
        expect(text, `${method} ${url}`).not.to.contain(MARKER);
        expect(text).not.to.contain('root:');
      }
    }
    expect(heads()).to.deep.equal(before);
  });

  it("keeps MCP tool calls inside the caller's vault", async () => {
    const client = await mcpClient(server.url, { bearer: alice });
    try {
      for (const path of TRAVERSALS) {
        const read = await call(client, 'read_page', { path });
        expect(read.isError, path).to.equal(true);
        expect(JSON.stringify(read)).not.to.contain(MARKER);
      }
      const search = await call(client, 'search', { q: MARKER });
      expect(JSON.stringify(search)).not.to.contain('secret.md');
    } finally {
      await client.close();
    }
  });

  it("answers search, export and clone from the caller's own vault only", async () => {
    const search = await (await server.api(`/vault/search?q=${MARKER}`, { key: alice })).json();
    expect(search.results).to.deep.equal([]);
    const zip = Buffer.from(await (await server.api('/vault/export', { key: alice })).arrayBuffer());
    expect(zip.includes(Buffer.from(MARKER))).to.equal(false);
    const tmp = tempDir('quire-clone-');
    try {
      const url = server.url.replace('http://', `http://alice:${alice}@`);
      await run('git', ['clone', '-q', `${url}/vault.git`, 'mine'], { cwd: tmp.path });
      expect(gitIn(join(tmp.path, 'mine'), 'ls-tree', '-r', '--name-only', 'HEAD')).not.to.contain('secret.md');
      // A clone URL naming another user's vault serves the caller's own, or nothing.
      for (const [i, path] of ['/bob/vault.git', '/vault.git/../bob', '/vault.git/%2e%2e/bob'].entries()) {
        const ok = await run('git', ['clone', '-q', `${url}${path}`, `x${i}`], { cwd: tmp.path }).then(
          () => true,
          () => false,
        );
        if (ok) expect(gitIn(join(tmp.path, `x${i}`), 'ls-tree', '-r', '--name-only', 'HEAD')).not.to.contain('secret.md');
      }
    } finally {
      tmp.cleanup();
    }
  });

  it('writes nothing outside the vault folders', async () => {
    expect(existsSync(join(server.dataDir, 'vaults', 'etc'))).to.equal(false);
    expect(readdirSync(join(server.dataDir, 'vaults')).sort()).to.deep.equal(['alice', 'bob']);
  });
});
