import { expect } from 'chai';
import { startTestServer, type TestServer } from '../helpers/test-server.js';
import { rpc } from '../server/mcp/mcp-client.js';

const write = { name: 'write_page', arguments: { path: 'slipped.md', content: 'x' } };

/**
 * The 403 challenge (server/mcp/step-up.ts) judges only a single well-formed tools/call; every
 * other shape passes it by. None of them may reach a write the credential lacks the scope for.
 */
describe('attack: slipping a tools/call past the scope challenge', () => {
  let server: TestServer;
  let auth: Record<string, string>;
  before(async () => {
    server = await startTestServer();
    auth = { authorization: `Bearer ${await server.key('ann', 'read')}` };
  });
  after(() => server.stop());

  const shapes: [string, unknown][] = [
    ['a batch', [{ jsonrpc: '2.0', id: 1, method: 'tools/call', params: write }]],
    ['an object id', { jsonrpc: '2.0', id: { x: 1 }, method: 'tools/call', params: write }],
    ['a notification (no id)', { jsonrpc: '2.0', method: 'tools/call', params: write }],
    ['a name with other case', { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { ...write, name: 'Write_Page' } }],
    ['a prototype name', { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { ...write, name: '__proto__' } }],
  ];
  for (const [what, body] of shapes) {
    it(`${what}: never writes with a read key`, async () => {
      const res = await rpc(server.url, body, auth);
      const text = await res.text();
      expect(res.status, text).to.not.equal(500);
      if (res.status === 200 && text.includes('"result"')) expect(text).to.match(/INSUFFICIENT_SCOPE|Unknown tool/);
      expect((await server.services.vaults.get('ann')).hasFile('slipped.md')).to.equal(false);
    });
  }

  it('a well-formed call is challenged, with nothing of the request echoed into the header', async () => {
    const res = await rpc(server.url, { jsonrpc: '2.0', id: 'x"y', method: 'tools/call', params: write }, auth);
    expect(res.status).to.equal(403);
    expect(res.headers.get('www-authenticate')).to.match(/^Bearer error="insufficient_scope", scope="mcp:read mcp:write", /);
    expect(res.headers.get('www-authenticate')).to.not.include('x"y');
    expect((await res.json()).id).to.equal('x"y');
  });
});
