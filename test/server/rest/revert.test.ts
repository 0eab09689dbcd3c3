import { expect } from 'chai';
import { vaultDir } from '../../../server/vaults/user-vault.js';
import { gitIn } from '../../helpers/temp-vault.js';
import { startTestServer, type TestServer } from '../../helpers/test-server.js';
import { call, mcpClient } from '../mcp/mcp-client.js';

describe('revert_changes (POST /vault/revert, MCP revert_changes)', function () {
  this.timeout(30_000);
  let server: TestServer;
  let owner: string;
  let scout: string;
  const since = new Date(Date.now() - 3600_000).toISOString();

  const post = async (route: string, json: unknown, key = owner) => {
    const res = await server.api(route, { method: 'POST', key, json });
    return { status: res.status, body: await res.json() };
  };
  const git = (...args: string[]) => gitIn(vaultDir(server.dataDir, 'dana'), ...args).trim();
  const read = async (path: string) => (await server.api(`/vault/page/${path}`, { key: owner })).json();

  beforeEach(async () => {
    server = await startTestServer();
    owner = await server.key('dana', 'write', { name: 'laptop' });
    await post('/vault/page', { path: 'notes/a.md', content: '# A\n\none\ntwo\nthree\nfour\nfive\nsix\n' });
    await post('/vault/page', { path: 'notes/b.md', content: '# B\n' });
    await server.services.agents.put('dana', 'scout', { mode: 'write', read: [''], write: [''] });
    scout = await server.key('dana', 'write', { agent: 'scout', name: 'scout-key' });
    // The agent's session: an edit, a new page, a deletion; then the owner edits a.md elsewhere.
    await post('/vault/page', { path: 'notes/a.md', content: '# A\n\nONE\ntwo\nthree\nfour\nfive\nsix\n' }, scout);
    await post('/vault/page', { path: 'notes/new.md', content: 'agent page\n' }, scout);
    await server.api('/vault/page/notes/b.md', { method: 'DELETE', key: scout });
    await post('/vault/append', { path: 'notes/a.md', text: 'seven, by the owner' });
  });
  afterEach(() => server.stop());

  it('plans with dry_run, then undoes the session in one commit that keeps the later edit', async () => {
    const head = git('rev-parse', 'main');
    const plan = await post('/vault/revert', { agent: 'scout', since, dry_run: true });
    expect(plan.status).to.equal(200);
    expect(plan.body).to.deep.include({ dry_run: true, commit: null, deleted: [{ path: 'notes/new.md' }], skipped: [] });
    expect(plan.body.commits).to.have.length(3);
    expect(git('rev-parse', 'main')).to.equal(head);

    const done = await post('/vault/revert', { agent: 'scout', since });
    expect(done.status).to.equal(200);
    expect(done.body.commit).to.equal(git('rev-parse', 'main'));
    expect(git('rev-list', '--count', `${head}..main`)).to.equal('1');
    expect(git('log', '-1', '--format=%B'))
      .to.match(/^Revert changes by agent scout from /)
      .and.include('Quire-Actor: key:laptop');
    expect((await read('notes/a.md')).content).to.equal('# A\n\none\ntwo\nthree\nfour\nfive\nsix\nseven, by the owner\n');
    expect((await read('notes/b.md')).content).to.equal('# B\n');
    expect((await server.api('/vault/page/notes/new.md', { key: owner })).status).to.equal(404);

    const again = await post('/vault/revert', { agent: 'scout', since });
    expect([again.status, again.body.commit, again.body.reverted]).to.deep.equal([200, null, []]);
    expect(git('rev-list', '--count', `${head}..main`)).to.equal('1');
  });

  it('undoes one commit by id, and answers bad input with 400 and an unknown commit with 404, writing nothing', async () => {
    const head = git('rev-parse', 'main');
    for (const bad of [
      { since },
      { agent: 'scout' },
      { agent: 'scout', key: 'scout-key', since },
      { agent: 'scout', since: 'yesterday' },
      { agent: 'scout', since, until: '2000-01-01' },
      { commit: head, agent: 'scout', since },
      { commit: 'abc' },
    ]) {
      const res = await post('/vault/revert', bad);
      expect([res.status, res.body.code], JSON.stringify(bad)).to.deep.equal([400, 'INVALID_REQUEST']);
    }
    const unknown = await post('/vault/revert', { commit: 'f'.repeat(40) });
    expect([unknown.status, unknown.body.code]).to.deep.equal([404, 'NOT_FOUND']);
    expect(unknown.body.message).to.include('f'.repeat(40));
    expect(git('rev-parse', 'main')).to.equal(head);

    const done = await post('/vault/revert', { commit: head });
    expect(done.body.reverted.map((r: { path: string }) => r.path)).to.deep.equal(['notes/a.md']);
    expect((await read('notes/a.md')).content).to.equal('# A\n\nONE\ntwo\nthree\nfour\nfive\nsix\n');
  });

  it('only plans over MCP until confirm: true, by key name as well as by agent', async () => {
    const client = await mcpClient(server.url, { bearer: owner });
    try {
      const head = git('rev-parse', 'main');
      const plan = await call(client, 'revert_changes', { key: 'scout-key', since });
      expect(plan.isError).to.not.equal(true);
      expect(plan.structuredContent).to.deep.include({ dry_run: true, commit: null });
      expect(git('rev-parse', 'main')).to.equal(head);
      const done = await call(client, 'revert_changes', { key: 'scout-key', since, confirm: true });
      expect(done.structuredContent).to.deep.include({ dry_run: false, commit: git('rev-parse', 'main') });
      expect((await read('notes/b.md')).content).to.equal('# B\n');
    } finally {
      await client.close();
    }
  });
});
