import { expect } from 'chai';
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { vaultDir } from '../../../server/vaults/user-vault.js';
import { startTestServer, type TestServer } from '../../helpers/test-server.js';
import { gitIn } from '../../helpers/temp-vault.js';
import { call, mcpClient } from '../mcp/mcp-client.js';

describe('a vault busy with a git operation in its folder', function () {
  this.timeout(20_000);
  let server: TestServer;
  let key: string;
  let vault: string;

  beforeEach(async () => {
    server = await startTestServer();
    key = await server.key('alice', 'write');
    await server.api('/vault/page', { method: 'POST', key, json: { path: 'a.md', content: 'alpha' } });
    vault = vaultDir(server.dataDir, 'alice');
  });
  afterEach(() => server.stop());

  it('answers writes 503 VAULT_BUSY with Retry-After on REST and an isError result on MCP; reads go on', async () => {
    mkdirSync(join(vault, '.git', 'rebase-merge'));
    const head = gitIn(vault, 'rev-parse', 'main');

    const res = await server.api('/vault/page', { method: 'POST', key, json: { path: 'b.md', content: 'beta' } });
    expect(res.status).to.equal(503);
    expect(Number(res.headers.get('retry-after'))).to.be.greaterThan(0);
    const body = (await res.json()) as { code: string; message: string; state: string };
    expect(body).to.include({ code: 'VAULT_BUSY', state: 'rebase' });
    expect(body.message).to.match(/a rebase is in progress in the vault folder/i);

    const read = await server.api('/vault/page/a.md', { key });
    expect(read.status).to.equal(200);

    const client = await mcpClient(server.url, { bearer: key });
    const result = await call(client, 'write_page', { path: 'b.md', content: 'beta' });
    expect(result.isError).to.equal(true);
    expect(result.structuredContent).to.include({ code: 'VAULT_BUSY', state: 'rebase' });
    await client.close();

    expect(gitIn(vault, 'rev-parse', 'main')).to.equal(head);
    rmSync(join(vault, '.git', 'rebase-merge'), { recursive: true });
    const after = await server.api('/vault/page', { method: 'POST', key, json: { path: 'b.md', content: 'beta' } });
    expect(after.status).to.equal(201);
  });
});
