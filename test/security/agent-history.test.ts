import { expect } from 'chai';
import { startTestServer, type TestServer } from '../helpers/test-server.js';
import { call, mcpClient } from '../server/mcp/mcp-client.js';

/**
 * History reaches into every version of every page: an agent must see only the history of
 * paths it may read (a hidden path is absent, never a redacted entry), restore only within
 * its write paths, and a propose-mode agent's restore must become a proposal.
 */
describe('attack: agents reading history and restoring versions', function () {
  this.timeout(60_000);
  let server: TestServer;
  let owner: string;
  const keys: Record<string, string> = {};
  let firstAlpha: { commit: string; hash: string };
  let secretV1: { commit: string; hash: string };

  const req = async (path: string, key: string, json?: unknown) => {
    const res = await server.api(path, json === undefined ? { key } : { method: 'POST', key, json });
    return { status: res.status, body: await res.json() };
  };
  const head = async () => (await req('/vault/history?limit=1', owner)).body.entries[0].commit as string;
  const leaks = (body: unknown) => JSON.stringify(body).includes('secret');

  before(async () => {
    server = await startTestServer();
    owner = await server.key('dana', 'write', { name: 'laptop', plan: 'pro' });
    firstAlpha = (await req('/vault/page', owner, { path: 'projects/alpha.md', content: 'alpha one\n' })).body;
    await req('/vault/page', owner, { path: 'projects/alpha.md', content: 'alpha two\n' });
    secretV1 = (await req('/vault/page', owner, { path: 'secret/plan.md', content: 'the hidden plan\n' })).body;
    await req('/vault/page', owner, { path: 'secret/plan.md', content: 'the hidden plan, revised\n' });
    await req('/vault/page', owner, { path: 'secret/x.md', content: 'filed later\n' });
    await req('/vault/page', owner, { path: 'secret/gone.md', content: 'to delete\n' });
    await server.api('/vault/page/secret/gone.md', { method: 'DELETE', key: owner });
    expect((await req('/vault/move', owner, { from: 'secret/x.md', to: 'projects/y.md' })).status).to.equal(200);
    const agents = [
      ['proj', { mode: 'write', read: ['projects/'], write: ['projects/'] }],
      ['scout', { mode: 'propose', read: [''], write: ['projects/'] }],
      ['reader', { mode: 'read', read: [''] }],
    ] as const;
    for (const [name, agent] of agents) {
      await server.services.agents.put('dana', name, { ...agent, read: [...agent.read], write: 'write' in agent ? [...agent.write] : [] });
      keys[name] = await server.key('dana', 'write', { agent: name, name: `${name}-key` });
    }
  });
  after(() => server.stop());

  it('answers the history, past versions and diffs of a hidden page exactly like a missing one', async () => {
    for (const query of [
      (p: string) => `/vault/history?path=${p}`,
      (p: string) => `/vault/page/${p}?at=${secretV1.commit}`,
      (p: string) => `/vault/diff?path=${p}&from=${secretV1.commit}`,
      (p: string) => `/vault/diff?path=${p}&from=${secretV1.hash}`,
    ]) {
      const hidden = await req(query('secret/plan.md'), keys.proj);
      const missing = await req(query('secret/none.md'), keys.proj);
      expect(hidden.status, query('x')).to.equal(404);
      expect(JSON.stringify(hidden).replaceAll('secret/plan.md', 'secret/none.md')).to.equal(JSON.stringify(missing));
    }
    // A hidden page's blob named as a version of a readable page is unknown, not "another page's".
    const asVersion = await req(`/vault/diff?path=projects/alpha.md&from=${secretV1.hash}`, keys.proj);
    expect([asVersion.status, leaks(asVersion.body)]).to.deep.equal([404, false]);
  });

  it('leaves hidden paths out of activity, the deleted list and a page moved out of a hidden folder', async () => {
    const activity = (await req('/vault/history?limit=200', keys.proj)).body;
    expect(leaks(activity)).to.equal(false);
    expect(activity.entries.flatMap((e: { changes: { path: string }[] }) => e.changes.map((c) => c.path))).to.deep.equal([
      'projects/y.md',
      'projects/alpha.md',
      'projects/alpha.md',
    ]);
    const moved = (await req('/vault/history?path=projects/y.md', keys.proj)).body;
    expect(leaks(moved)).to.equal(false);
    expect(moved.entries.map((e: { changes: { kind: string }[] }) => e.changes[0].kind)).to.deep.equal(['created']);
    expect((await req('/vault/deleted', keys.proj)).body).to.deep.equal({ pages: [], next_cursor: null });
    expect((await req('/vault/deleted', owner)).body.pages.map((p: { path: string }) => p.path)).to.deep.equal(['secret/gone.md']);
    // The owner sees the whole move.
    const ownerMoved = (await req('/vault/history?path=projects/y.md', owner)).body;
    expect(ownerMoved.entries[0].changes[0]).to.include({ kind: 'renamed', from: 'secret/x.md' });
  });

  it('refuses a restore outside the write paths, and to a read-only agent, writing nothing', async () => {
    const before = await head();
    const outside = await req('/vault/restore', keys.proj, { path: 'secret/plan.md', at: secretV1.commit });
    expect([outside.status, outside.body.code]).to.deep.equal([403, 'AGENT_FORBIDDEN']);
    const reader = await req('/vault/restore', keys.reader, { path: 'projects/alpha.md', at: firstAlpha.commit });
    expect([reader.status, reader.body.code]).to.deep.equal([403, 'AGENT_FORBIDDEN']);
    expect(await head()).to.equal(before);
  });

  it("turns a propose-mode agent's restore into a proposal, over REST and MCP, committing nothing", async () => {
    const before = await head();
    const proposed = await req('/vault/restore', keys.scout, { path: 'projects/alpha.md', at: firstAlpha.commit });
    expect(proposed.status).to.equal(200);
    expect(proposed.body).to.include({ restored: false, commit: null, hash: firstAlpha.hash });
    const proposal = (await req(`/vault/proposals/${proposed.body.proposal_id}`, owner)).body;
    expect(proposal).to.include({ status: 'pending', title: 'Restore projects/alpha.md' });
    expect(proposal.changes).to.deep.equal([
      { path: 'projects/alpha.md', hash: firstAlpha.hash, base_hash: proposal.changes[0].base_hash },
    ]);
    const mcp = await mcpClient(server.url, { bearer: keys.scout });
    try {
      const result = await call(mcp, 'restore_page', { path: 'projects/alpha.md', at: firstAlpha.commit });
      expect(result.isError).to.not.equal(true);
      expect(result.structuredContent).to.have.property('proposal_id').that.is.a('string');
    } finally {
      await mcp.close();
    }
    expect(await head()).to.equal(before);
  });
});
