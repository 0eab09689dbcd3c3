import { execFileSync } from 'node:child_process';
import { expect } from 'chai';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { vaultDir } from '../../../server/vaults/user-vault.js';
import { gitIn } from '../../helpers/temp-vault.js';
import { startTestServer, type TestServer } from '../../helpers/test-server.js';
import { call, mcpClient } from '../mcp/mcp-client.js';

const text = (n: number) => Array.from({ length: n }, (_, i) => `line ${i + 1}`).join('\n') + '\n';

describe('merge instead of 409 (write_page, patch_page, append_to_page with merge: true)', function () {
  this.timeout(30_000);
  let server: TestServer;
  let key: string;
  let base: string;

  const post = async (route: string, json: unknown) => {
    const res = await server.api(route, { method: 'POST', key, json });
    return { status: res.status, body: await res.json() };
  };
  const head = () => gitIn(vaultDir(server.dataDir, 'alice'), 'rev-parse', 'main').trim();
  const read = async () => (await (await server.api('/vault/page/n.md', { key })).json()) as { content: string; hash: string };

  beforeEach(async () => {
    server = await startTestServer();
    key = await server.key('alice', 'write');
    base = (await post('/vault/page', { path: 'n.md', content: text(10) })).body.hash;
    // Someone else edits line 2 after the caller read the page at `base`.
    await post('/vault/page', { path: 'n.md', content: text(10).replace('line 2\n', 'two\n') });
  });
  afterEach(() => server.stop());

  it('commits a clean merge of a whole-page write and says merged: true', async () => {
    const { status, body } = await post('/vault/page', {
      path: 'n.md',
      content: text(10).replace('line 9\n', 'nine\n'),
      base_hash: base,
      merge: true,
    });
    expect(status).to.equal(200);
    expect(body).to.include({ merged: true, created: false, content: text(10).replace('line 2\n', 'two\n').replace('line 9\n', 'nine\n') });
    expect(body.commit).to.equal(head());
    expect((await read()).hash).to.equal(body.hash);
  });

  it('answers overlapping edits with 409, the page with conflict markers and the three hashes, writing nothing', async () => {
    const before = head();
    const current = (await read()).hash;
    const mine = text(10).replace('line 2\n', 'TWO\n');
    const { status, body } = await post('/vault/page', { path: 'n.md', content: mine, base_hash: base, merge: true });
    expect(status).to.equal(409);
    expect(body).to.include({ code: 'CONFLICT', path: 'n.md', base_hash: base, current_hash: current });
    expect(body.theirs_hash).to.equal(execFileSync('git', ['hash-object', '--stdin'], { input: mine, encoding: 'utf8' }).trim());
    expect(body.merge).to.equal(text(10).replace('line 2\n', '<<<<<<< ours\ntwo\n=======\nTWO\n>>>>>>> theirs\n'));
    expect(head()).to.equal(before);
  });

  it('keeps the plain 409 without merge: true, and for a base git does not hold', async () => {
    const plain = await post('/vault/page', { path: 'n.md', content: 'x\n', base_hash: base });
    expect(plain.status).to.equal(409);
    expect(plain.body).to.not.have.property('merge');
    const unknown = await post('/vault/page', { path: 'n.md', content: 'x\n', base_hash: 'f'.repeat(40), merge: true });
    expect([unknown.status, unknown.body.code]).to.deep.equal([409, 'CONFLICT']);
    expect(unknown.body).to.not.have.property('merge');
    expect((await read()).content).to.equal(text(10).replace('line 2\n', 'two\n'));
  });

  it('refuses merge without base_hash (400) and answers a fresh base_hash with no merged flag', async () => {
    const refused = await post('/vault/page', { path: 'n.md', content: 'x\n', merge: true });
    expect([refused.status, refused.body.code]).to.deep.equal([400, 'INVALID_REQUEST']);
    const fresh = await post('/vault/page', { path: 'n.md', content: 'fresh\n', base_hash: (await read()).hash, merge: true });
    expect(fresh.status).to.equal(200);
    expect(fresh.body).to.not.have.property('merged');
  });

  it('applies a stale patch to the version it was made on, then merges', async () => {
    const { status, body } = await post('/vault/patch', {
      path: 'n.md',
      find: 'line 8\n',
      replace: 'eight\n',
      base_hash: base,
      merge: true,
    });
    expect(status).to.equal(200);
    expect(body).to.include({ merged: true, content: text(10).replace('line 2\n', 'two\n').replace('line 8\n', 'eight\n') });
    // The text it finds is gone from the page now, but was in its base: still an overlap, so 409.
    const overlap = await post('/vault/patch', { path: 'n.md', find: 'line 2\n', replace: 'deux\n', base_hash: base, merge: true });
    expect(overlap.status).to.equal(409);
    expect(overlap.body.merge).to.include('<<<<<<< ours\ntwo\n=======\ndeux\n>>>>>>> theirs\n');
  });

  it('appends a stale append to the page as it is now', async () => {
    const { status, body } = await post('/vault/append', { path: 'n.md', text: 'appended', base_hash: base, merge: true });
    expect(status).to.equal(200);
    expect(body).to.include({ merged: true, content: `${text(10).replace('line 2\n', 'two\n')}appended\n` });
  });

  it('merges over MCP too, with merged in structuredContent and the conflict as an error result', async () => {
    const client: Client = await mcpClient(server.url, { bearer: key });
    try {
      const ok = await call(client, 'write_page', {
        path: 'n.md',
        content: text(10).replace('line 5\n', 'five\n'),
        base_hash: base,
        merge: true,
      });
      expect(ok.isError).to.not.equal(true);
      expect(ok.structuredContent).to.include({
        merged: true,
        content: text(10).replace('line 2\n', 'two\n').replace('line 5\n', 'five\n'),
      });
      const clash = await call(client, 'write_page', {
        path: 'n.md',
        content: text(10).replace('line 2\n', 'zwei\n'),
        base_hash: base,
        merge: true,
      });
      expect(clash.isError).to.equal(true);
      expect(clash.structuredContent).to.include({ code: 'CONFLICT', base_hash: base });
      expect(clash.structuredContent!.merge).to.include('=======\nzwei\n>>>>>>> theirs\n');
    } finally {
      await client.close();
    }
  });
});
