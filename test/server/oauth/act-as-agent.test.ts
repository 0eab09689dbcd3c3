import { expect } from 'chai';
import { startTestServer, type TestServer } from '../../helpers/test-server.js';
import { call, mcpClient } from '../mcp/mcp-client.js';
import { connectApp, userWithPassword } from './flow.js';

describe('OAuth consent: act as an agent', () => {
  let server: TestServer;

  before(async () => {
    server = await startTestServer();
    await userWithPassword(server);
    const owner = await server.key('ann', 'write', { name: 'laptop' });
    for (const [path, content] of [
      ['projects/plan.md', '# Plan'],
      ['private/diary.md', '# Diary'],
    ]) {
      await server.api('/vault/page', { method: 'POST', key: owner, json: { path, content } });
    }
    await server.services.agents.put('ann', 'helper', { mode: 'write', read: ['projects/'], write: ['projects/'] });
  });
  after(() => server.stop());

  it("offers the user's agents, and a grant bound to one is held to its folders on every call", async () => {
    const app = await connectApp(server, { scope: 'mcp', approval: { actAs: 'helper' } });
    const client = await mcpClient(server.url, { bearer: app.access_token });
    try {
      const visible = await call(client, 'read_page', { path: 'projects/plan.md' });
      expect(visible.isError ?? false).to.equal(false);
      const hidden = await call(client, 'read_page', { path: 'private/diary.md' });
      expect(hidden.isError).to.equal(true);
      expect((hidden.structuredContent as { code: string }).code).to.equal('NOT_FOUND');
      const outside = await call(client, 'write_page', { path: 'private/new.md', content: 'x' });
      expect((outside.structuredContent as { code: string }).code).to.equal('AGENT_FORBIDDEN');
      const inside = await call(client, 'write_page', { path: 'projects/new.md', content: 'x' });
      expect(inside.isError ?? false).to.equal(false);
    } finally {
      await client.close();
    }
  });

  it('acts as the user when "me" is chosen', async () => {
    const app = await connectApp(server, { scope: 'mcp' });
    const client = await mcpClient(server.url, { bearer: app.access_token });
    try {
      const diary = await call(client, 'read_page', { path: 'private/diary.md' });
      expect(diary.isError ?? false).to.equal(false);
    } finally {
      await client.close();
    }
  });
});
