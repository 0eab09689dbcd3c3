import { expect } from 'chai';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gitIn } from '../../helpers/temp-vault.js';
import { startTestServer, type TestServer } from '../../helpers/test-server.js';
import { AUTHOR, git, remoteUrl } from '../git-http/git-client.js';
import { call, mcpClient } from '../mcp/mcp-client.js';

interface Entry {
  commit: string;
  message: string;
  actor: string;
  key?: string;
  credential?: string;
  device?: string;
  changes: { path: string; kind: string; hash: string | null; from?: string }[];
}

describe('history over REST and MCP: page history, activity, read at, diff, restore, deleted', function () {
  this.timeout(60_000);
  let server: TestServer;
  let key: string;
  let dir: string;

  const get = async (path: string, k = key) => {
    const res = await server.api(path, { key: k });
    return { status: res.status, body: await res.json() };
  };
  const post = async (path: string, json: unknown, k = key) => {
    const res = await server.api(path, { method: 'POST', key: k, json });
    return { status: res.status, body: await res.json() };
  };
  const history = async (query: string) => (await get(`/vault/history?${query}`)).body as { entries: Entry[]; next_cursor: string | null };

  beforeEach(async () => {
    server = await startTestServer();
    key = await server.key('dana', 'write', { name: 'laptop' });
    dir = (await server.services.vaults.get('dana')).dir;
  });
  afterEach(() => server.stop());

  it('follows a page through REST writes, a move, an outside git commit and a git push, with who made each', async () => {
    const v1 = (await post('/vault/page', { path: 'notes/plan.md', content: '# Plan\n\nstep one\n' })).body;
    expect((await post('/vault/move', { from: 'notes/plan.md', to: 'projects/plan.md' })).status).to.equal(200);
    writeFileSync(join(dir, 'projects', 'plan.md'), '# Plan\n\nstep one\nstep two\n');
    gitIn(dir, ...AUTHOR, 'commit', '-qam', 'Edited in the folder');
    const client = join(server.dataDir, 'client');
    expect((await git(['clone', '-q', remoteUrl(server.url, key), client])).status).to.equal(0);
    writeFileSync(join(client, 'projects', 'plan.md'), '# Plan\n\nstep one\nstep two\nstep three\n');
    gitIn(client, ...AUTHOR, 'commit', '-qam', 'Pushed from a clone');
    expect((await git(['push', '-q', 'origin', 'HEAD:main'], client)).status).to.equal(0);

    const { entries, next_cursor } = await history('path=projects/plan.md');
    expect(next_cursor).to.equal(null);
    expect(entries.map((e) => [e.message, e.changes[0].kind, e.changes[0].from])).to.deep.equal([
      ['Pushed from a clone', 'modified', undefined],
      ['Edited in the folder', 'modified', undefined],
      ['Move notes/plan.md to projects/plan.md', 'renamed', 'notes/plan.md'],
      ['Update notes/plan.md', 'created', undefined],
    ]);
    expect(entries[3]).to.include({ commit: v1.commit, actor: 'key:laptop', key: 'laptop' });
    expect(entries[3].credential).to.be.a('string');
    // Paging with the cursor gives the same entries.
    const first = await history('path=projects/plan.md&limit=3');
    const rest = await history(`path=projects/plan.md&limit=3&cursor=${first.next_cursor}`);
    expect([...first.entries, ...rest.entries].map((e) => e.commit)).to.deep.equal(entries.map((e) => e.commit));
    // Activity filtered by key, by name or id.
    const byKey = await history('key=laptop');
    expect(byKey.entries.map((e) => e.message)).to.deep.equal(['Move notes/plan.md to projects/plan.md', 'Update notes/plan.md']);
    expect((await history(`key=${entries[3].credential}`)).entries).to.have.length(2);
    expect((await history('key=someone-else')).entries).to.deep.equal([]);
    expect((await history('since=2999-01-01')).entries).to.deep.equal([]);
  });

  it('records the device in commits made with a device key', async () => {
    const device = await server.key('dana', 'write', { name: 'phone', device: true });
    await post('/vault/page', { path: 'd.md', content: 'x' }, device);
    const [entry] = (await history('path=d.md')).entries;
    expect(entry).to.include({ key: 'phone', device: 'phone' });
  });

  it('reads a page at a commit or date, diffs versions, restores one and lists and restores a deleted page', async () => {
    const v1 = (await post('/vault/page', { path: 'n.md', content: '---\nstatus: draft\n---\nline one\n' })).body;
    const v2 = (await post('/vault/page', { path: 'n.md', content: '---\nstatus: done\n---\nline one\nline two\n' })).body;

    const old = await get(`/vault/page/n.md?at=${v1.commit.slice(0, 7)}`);
    expect(old.status).to.equal(200);
    expect(old.body).to.include({
      content: '---\nstatus: draft\n---\nline one\n',
      hash: v1.hash,
      commit: v1.commit,
      changed_in: v1.commit,
    });
    expect((await get('/vault/page/n.md?at=2999-01-01')).body.hash).to.equal(v2.hash);
    const before = await get('/vault/page/n.md?at=1990-01-01');
    expect([before.status, before.body.code]).to.deep.equal([404, 'NOT_FOUND']);
    expect(before.body.message).to.include('1990-01-01');
    expect((await get(`/vault/page/n.md?at=${'e'.repeat(40)}`)).status).to.equal(404);

    const diff = (await get(`/vault/diff?path=n.md&from=${v1.commit}`)).body;
    expect(diff.hunks[0].lines).to.include('+line two');
    expect(diff.frontmatter).to.deep.equal([{ field: 'status', change: 'changed', from: 'draft', to: 'done' }]);
    const other = (await post('/vault/page', { path: 'other.md', content: 'else\n' })).body;
    expect((await get(`/vault/diff?path=n.md&from=${other.hash}`)).status).to.equal(400);

    // Stale base_hash: 409, nothing written.
    const head = gitIn(dir, 'rev-parse', 'HEAD');
    const stale = await post('/vault/restore', { path: 'n.md', at: v1.commit, base_hash: v1.hash });
    expect([stale.status, stale.body.code]).to.deep.equal([409, 'CONFLICT']);
    expect(gitIn(dir, 'rev-parse', 'HEAD')).to.equal(head);
    const restored = await post('/vault/restore', { path: 'n.md', at: v1.commit, base_hash: v2.hash });
    expect(restored.status).to.equal(200);
    expect(restored.body).to.include({ restored: true, hash: v1.hash, version_commit: v1.commit, created: false });
    expect((await get('/vault/page/n.md')).body.content).to.equal('---\nstatus: draft\n---\nline one\n');
    // The same version again: nothing to commit.
    const again = await post('/vault/restore', { path: 'n.md', at: v1.commit });
    expect(again.body).to.include({ restored: false, commit: null });

    const del = await server.api('/vault/page/n.md', { method: 'DELETE', key });
    const deletedIn = (await del.json()).commit;
    const deleted = (await get('/vault/deleted')).body;
    expect(deleted.pages).to.deep.equal([
      { path: 'n.md', commit: deletedIn, deleted_at: deleted.pages[0].deleted_at, actor: 'key:laptop', last_hash: v1.hash },
    ]);
    const back = await post('/vault/restore', { path: 'n.md', at: v1.hash, base_hash: null });
    expect([back.status, back.body.created]).to.deep.equal([201, true]);
    expect((await get('/vault/deleted')).body.pages).to.deep.equal([]);
  });

  it('offers the same over MCP: page_history, read_page with at, diff_page, restore_page, list_deleted', async () => {
    const v1 = (await post('/vault/page', { path: 'm.md', content: 'one\n' })).body;
    await post('/vault/page', { path: 'm.md', content: 'two\n' });
    const mcp = await mcpClient(server.url, { bearer: key });
    try {
      const result = async (name: string, args: Record<string, unknown>) => {
        const r = await call(mcp, name, args);
        expect(r.isError, `${name} ${JSON.stringify(r.structuredContent)}`).to.not.equal(true);
        return r.structuredContent as Record<string, unknown> & { entries?: Entry[] };
      };
      expect((await result('page_history', { path: 'm.md' })).entries!.map((e) => e.changes[0].kind)).to.deep.equal([
        'modified',
        'created',
      ]);
      expect(await result('read_page', { path: 'm.md', at: v1.commit })).to.include({ content: 'one\n' });
      expect((await result('diff_page', { path: 'm.md', from: v1.hash })).unified).to.include('-one\n+two');
      expect(await result('restore_page', { path: 'm.md', at: v1.commit })).to.include({ restored: true });
      expect(await result('list_deleted', {})).to.deep.equal({ pages: [], next_cursor: null });
      const missing = await call(mcp, 'read_page', { path: 'm.md', at: '1990-01-01' });
      expect(missing.isError).to.equal(true);
      expect(missing.structuredContent).to.include({ code: 'NOT_FOUND' });
    } finally {
      await mcp.close();
    }
  });
});
