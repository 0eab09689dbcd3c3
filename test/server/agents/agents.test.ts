import { expect } from 'chai';
import { startServer } from '../../../server/server.js';
import { startTestServer, type TestServer } from '../../helpers/test-server.js';
import { gitIn } from '../../helpers/temp-vault.js';

describe('agents over REST', function () {
  this.timeout(30_000);
  let server: TestServer;
  let owner: string;

  beforeEach(async () => {
    server = await startTestServer();
    owner = await server.key('dana', 'write', { name: 'laptop' });
  });
  afterEach(() => server.stop());

  const put = (key: string, name: string, json: unknown) => server.api(`/vault/agents/${name}`, { method: 'PUT', key, json });
  const write = (key: string, path: string, content: string) => server.api('/vault/page', { method: 'POST', key, json: { path, content } });
  const agentKey = async (name: string, body: Record<string, unknown>, scope: 'read' | 'write' = 'write') => {
    expect((await put(owner, name, body)).status).to.equal(201);
    return server.key('dana', scope, { agent: name, name: `${name}-key` });
  };

  it('lets the owner create, list, replace and delete agents, with prefixes normalized', async () => {
    const created = await put(owner, 'scout', {
      mode: 'propose',
      read: ['projects', 'notes/'],
      write: ['projects/ideas/', 'projects'],
      description: 'research bot',
    });
    expect(created.status).to.equal(201);
    expect(await created.json()).to.deep.include({
      name: 'scout',
      mode: 'propose',
      read: ['notes/', 'projects/'],
      write: ['projects/'],
      created: true,
    });
    const replaced = await put(owner, 'scout', { mode: 'read' });
    expect(replaced.status).to.equal(200);
    expect(await replaced.json()).to.deep.include({ mode: 'read', read: [''], write: [''], description: '' });
    const { agents } = await (await server.api('/vault/agents', { key: owner })).json();
    expect(agents.map((a: { name: string }) => a.name)).to.deep.equal(['scout']);
    expect((await server.api('/vault/agents/scout', { method: 'DELETE', key: owner })).status).to.equal(200);
    expect((await server.api('/vault/agents/scout', { method: 'DELETE', key: owner })).status).to.equal(404);
    expect((await put(owner, 'Bad Name', { mode: 'read' })).status).to.equal(400);
    expect((await put(owner, 'x', { mode: 'admin' })).status).to.equal(400);
    expect((await put(owner, 'x', { mode: 'read', read: ['../up'] })).status).to.equal(400);
  });

  it('refuses agent management, approval and rejection to agent-bound credentials', async () => {
    const key = await agentKey('helper', { mode: 'write' });
    for (const [method, path] of [
      ['GET', '/vault/agents'],
      ['PUT', '/vault/agents/other'],
      ['DELETE', '/vault/agents/helper'],
      ['POST', '/vault/proposals/20260101-abcd/approve'],
      ['POST', '/vault/proposals/20260101-abcd/reject'],
    ]) {
      const res = await server.api(path, { method, key, ...(method === 'GET' || method === 'DELETE' ? {} : { json: { mode: 'write' } }) });
      expect(res.status, `${method} ${path}`).to.equal(403);
      expect((await res.json()).code).to.equal('AGENT_FORBIDDEN');
    }
  });

  it("refuses a propose agent's direct write and lands its proposal only after approval", async () => {
    await write(owner, 'projects/plan.md', '# Plan\n\nstep one\n');
    const key = await agentKey('scout', { mode: 'propose', write: ['projects/'] });
    const direct = await write(key, 'projects/plan.md', 'hijacked');
    expect(direct.status).to.equal(403);
    const body = await direct.json();
    expect(body.code).to.equal('AGENT_FORBIDDEN');
    expect(body.message).to.match(/create_proposal/);
    for (const [path, init] of [
      ['/vault/page/projects/plan.md', { method: 'DELETE' }],
      ['/vault/capture', { method: 'POST', json: { title: 't', content: 'c' } }],
    ] as const) {
      expect((await server.api(path, { ...init, key })).status, path).to.equal(403);
    }

    const { hash } = await (await server.api('/vault/page/projects/plan.md', { key })).json();
    const outside = await server.api('/vault/proposals', {
      method: 'POST',
      key,
      json: { title: 'x', changes: [{ path: 'private/x.md', content: 'x' }] },
    });
    expect(outside.status).to.equal(403);
    const made = await server.api('/vault/proposals', {
      method: 'POST',
      key,
      json: {
        title: 'Add step two',
        rationale: 'it was missing',
        changes: [{ path: 'projects/plan.md', content: '# Plan\n\nstep one\nstep two\n', base_hash: hash }],
      },
    });
    expect(made.status).to.equal(201);
    const proposal = await made.json();
    expect(proposal).to.deep.include({ status: 'pending', title: 'Add step two' });
    expect(proposal.created_by).to.deep.include({ agent: 'scout' });
    expect((await (await server.api('/vault/page/projects/plan.md', { key: owner })).json()).content).to.equal('# Plan\n\nstep one\n');

    const detail = await (await server.api(`/vault/proposals/${proposal.id}`, { key })).json();
    expect(detail.applies).to.equal('clean');
    expect(detail.diffs[0].diff).to.include('+step two');
    expect((await (await server.api('/vault/proposals?status=pending', { key: owner })).json()).proposals).to.have.length(1);

    const approved = await server.api(`/vault/proposals/${proposal.id}/approve`, { method: 'POST', key: owner });
    expect(approved.status, await approved.clone().text()).to.equal(200);
    expect((await approved.json()).status).to.equal('approved');
    expect((await (await server.api('/vault/page/projects/plan.md', { key: owner })).json()).content).to.equal(
      '# Plan\n\nstep one\nstep two\n',
    );
    expect((await (await server.api('/vault/proposals?status=pending', { key: owner })).json()).proposals).to.deep.equal([]);
    expect((await (await server.api('/vault/proposals?status=approved', { key: owner })).json()).proposals[0].id).to.equal(proposal.id);
  });

  it('answers 409 with each conflicting hash when a page changed before approval, and applies nothing', async () => {
    await write(owner, 'projects/a.md', 'alpha\n');
    await write(owner, 'projects/b.md', 'beta\n');
    const key = await agentKey('scout', { mode: 'propose' });
    const made = await (
      await server.api('/vault/proposals', {
        method: 'POST',
        key,
        json: {
          title: 'both',
          changes: [
            { path: 'projects/a.md', content: 'ALPHA\n' },
            { path: 'projects/b.md', content: 'BETA\n' },
          ],
        },
      })
    ).json();
    const moved = await (await write(owner, 'projects/b.md', 'beta, edited\n')).json();
    const res = await server.api(`/vault/proposals/${made.id}/approve`, { method: 'POST', key: owner });
    expect(res.status).to.equal(409);
    const body = await res.json();
    expect(body.code).to.equal('CONFLICT');
    expect(body.conflicts).to.deep.equal([
      {
        path: 'projects/b.md',
        base_hash: made.changes[1].base_hash,
        current_hash: moved.hash,
        merge: '<<<<<<< ours\nbeta, edited\n=======\nBETA\n>>>>>>> theirs\n',
      },
    ]);
    expect((await (await server.api('/vault/page/projects/a.md', { key: owner })).json()).content).to.equal('alpha\n');
    expect((await (await server.api(`/vault/proposals/${made.id}`, { key: owner })).json()).status).to.equal('pending');
    const rejected = await server.api(`/vault/proposals/${made.id}/reject`, { method: 'POST', key: owner, json: { reason: 'stale' } });
    expect(await rejected.json()).to.deep.include({ status: 'rejected', reason: 'stale' });
  });

  it('lets a mirror agent write only under its prefix', async () => {
    const key = await agentKey('readwise', { mode: 'write', write: ['readwise/'] });
    expect((await write(key, 'readwise/book.md', 'highlights')).status).to.equal(201);
    expect((await write(key, 'readwise/deep/er.md', 'more')).status).to.equal(201);
    for (const path of ['notes/x.md', 'readwise.md', 'readwise-old/x.md']) {
      const res = await write(key, path, 'nope');
      expect(res.status, path).to.equal(403);
      expect((await res.json()).code).to.equal('AGENT_FORBIDDEN');
    }
    expect((await server.api('/vault/capture', { method: 'POST', key, json: { title: 't', content: 'c' } })).status).to.equal(403);
    expect(
      (await server.api('/vault/move', { method: 'POST', key, json: { from: 'readwise/book.md', to: 'notes/book.md' } })).status,
    ).to.equal(403);
    const readOnly = await agentKey('reader', { mode: 'read' });
    expect((await write(readOnly, 'readwise/x.md', 'x')).status).to.equal(403);
    expect(
      (
        await server.api('/vault/proposals', {
          method: 'POST',
          key: readOnly,
          json: { title: 't', changes: [{ path: 'a.md', content: 'a' }] },
        })
      ).status,
    ).to.equal(403);
  });

  it('names the agent in every commit it made, directly or through an approved proposal', async () => {
    const mirror = await agentKey('mirror', { mode: 'write', write: ['mirror/'] });
    const scout = await agentKey('scout', { mode: 'propose' });
    await write(mirror, 'mirror/one.md', '1');
    await server.api('/vault/capture', {
      method: 'POST',
      key: await agentKey('inbox', { mode: 'write', write: ['capture/'] }),
      json: { title: 'Idea', content: 'c' },
    });
    await server.api('/vault/append', { method: 'POST', key: mirror, json: { path: 'mirror/one.md', text: 'more' } });
    await server.api('/vault/page/mirror/one.md', { method: 'DELETE', key: mirror });
    const { id } = await (
      await server.api('/vault/proposals', {
        method: 'POST',
        key: scout,
        json: { title: 't', changes: [{ path: 'notes/n.md', content: 'n' }] },
      })
    ).json();
    await server.api(`/vault/proposals/${id}/approve`, { method: 'POST', key: owner });
    await write(owner, 'owner.md', 'by the owner');

    const dir = (await server.services.vaults.get('dana')).dir;
    const log = gitIn(dir, 'log', '--format=%an%x09%(trailers:key=Quire-Agent,key=Quire-Proposed-By,valueonly,separator=%x2C)', 'main')
      .trim()
      .split('\n');
    expect(log.slice(0, 6)).to.deep.equal([
      'laptop (key)\t',
      'laptop (key)\tscout',
      'mirror (agent, key:mirror-key)\tmirror',
      'mirror (agent, key:mirror-key)\tmirror',
      'inbox (agent, key:inbox-key)\tinbox',
      'mirror (agent, key:mirror-key)\tmirror',
    ]);
  });

  it('refuses everything to a key whose agent was deleted', async () => {
    const key = await agentKey('gone', { mode: 'write' });
    await server.api('/vault/agents/gone', { method: 'DELETE', key: owner });
    const res = await server.api('/vault/pages', { key });
    expect(res.status).to.equal(403);
    expect((await res.json()).code).to.equal('AGENT_FORBIDDEN');
  });

  it('keeps proposals across a restart', async () => {
    const key = await agentKey('scout', { mode: 'propose' });
    const { id } = await (
      await server.api('/vault/proposals', { method: 'POST', key, json: { title: 'keep me', changes: [{ path: 'k.md', content: 'k' }] } })
    ).json();
    await server.close();
    const again = await startServer(server.services.config, server.services.log);
    try {
      const res = await fetch(`${again.url}/vault/proposals/${id}`, { headers: { authorization: `Bearer ${owner}` } });
      expect(await res.json()).to.deep.include({ id, title: 'keep me', status: 'pending' });
      const approved = await fetch(`${again.url}/vault/proposals/${id}/approve`, {
        method: 'POST',
        headers: { authorization: `Bearer ${owner}` },
      });
      expect(approved.status).to.equal(200);
    } finally {
      await again.close();
    }
  });
});
