import { expect } from 'chai';
import { startTestServer, type TestServer } from '../helpers/test-server.js';
import { LIST_TOOLS, rpc } from '../server/mcp/mcp-client.js';
import { connectApp, tokenRequest, userWithPassword } from '../server/oauth/flow.js';

const INITIALIZE = {
  jsonrpc: '2.0',
  id: 0,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
};

/**
 * A session id is no credential: it works only with the credential (API key, OAuth grant)
 * that opened it. Anyone else holding it — another user, another key or agent of the same
 * user, another app — meets an unknown session (404), and cannot end it either.
 */
describe('MCP sessions cannot be borrowed', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(() => server.stop());

  const open = async (token: string) => {
    const res = await rpc(server.url, INITIALIZE, { authorization: `Bearer ${token}` });
    await res.body?.cancel();
    return res.headers.get('mcp-session-id')!;
  };
  const use = (token: string, session: string) =>
    rpc(server.url, LIST_TOOLS, { authorization: `Bearer ${token}`, 'mcp-session-id': session });
  const methods = (token: string, session: string) => [
    use(token, session),
    fetch(`${server.url}/mcp`, { headers: { authorization: `Bearer ${token}`, 'mcp-session-id': session, accept: 'text/event-stream' } }),
    fetch(`${server.url}/mcp`, { method: 'DELETE', headers: { authorization: `Bearer ${token}`, 'mcp-session-id': session } }),
  ];

  it("refuses the owner's session to an agent key, another key of the same user and another user", async () => {
    const ownerKey = await server.key('ora', 'write');
    await server.services.agents.put('ora', 'scout', { mode: 'read', read: ['public/'], write: [] });
    const intruders = [
      await server.key('ora', 'read', { agent: 'scout', name: 'scout-key' }),
      await server.key('ora', 'write', { name: 'second' }),
      await server.key('eve', 'write'),
    ];
    const session = await open(ownerKey);
    for (const intruder of intruders) {
      for (const res of await Promise.all(methods(intruder, session))) expect(res.status).to.equal(404);
    }
    expect((await use(ownerKey, session)).status).to.equal(200);
  });

  it("keeps an OAuth session through a token refresh (same grant), and refuses it to another app's token", async () => {
    await userWithPassword(server, 'oli');
    const app = await connectApp(server, { approval: { password: 'correct horse battery', user: 'oli' } });
    const session = await open(app.access_token);
    const refreshed = await tokenRequest(server, {
      grant_type: 'refresh_token',
      client_id: app.clientId,
      refresh_token: app.refresh_token,
    });
    expect(refreshed.status).to.equal(200);
    expect((await use((await refreshed.json()).access_token, session)).status).to.equal(200);
    const otherApp = await connectApp(server, { approval: { password: 'correct horse battery', user: 'oli' } });
    for (const res of await Promise.all(methods(otherApp.access_token, session))) expect(res.status).to.equal(404);
  });

  it('answers a malformed or oversized session id as unknown, without echoing it', async () => {
    const key = await server.key('ora', 'read');
    for (const session of ['x'.repeat(4000), '../../etc', '"><script>', 'zz-session']) {
      const res = await use(key, session);
      expect(res.status).to.equal(404);
      expect(res.headers.get('mcp-session-id')).to.equal(null);
      expect(await res.text()).to.not.include(session);
    }
  });
});
