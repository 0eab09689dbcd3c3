import { request } from 'node:http';
import { expect } from 'chai';
import { startTestServer, type TestServer } from '../../helpers/test-server.js';
import { LIST_TOOLS, call, mcpClient, rpc } from './mcp-client.js';

describe('MCP transport and credentials at /mcp', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(() => server.stop());

  it('answers a request without credentials with 401, the protected-resource metadata URL and the scopes to ask for', async () => {
    const res = await rpc(server.url, LIST_TOOLS);
    expect(res.status).to.equal(401);
    expect(res.headers.get('www-authenticate')).to.equal(
      `Bearer resource_metadata="${server.url}/.well-known/oauth-protected-resource/mcp", scope="mcp:read mcp:capture mcp:write"`,
    );
  });

  it('answers a POST whose Accept lists JSON alone (or nothing), since every answer is JSON', async () => {
    const key = await server.key('accept', 'read');
    for (const accept of ['application/json', '*/*', undefined]) {
      const res = await fetch(`${server.url}/mcp`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${key}`, ...(accept ? { accept } : {}) },
        body: JSON.stringify(LIST_TOOLS),
      });
      expect(res.status, String(accept)).to.equal(200);
      expect(res.headers.get('content-type')).to.match(/^application\/json/);
      expect((await res.json()).result.tools.length, String(accept)).to.be.above(0);
    }
    // A client that accepts neither JSON nor SSE cannot read any answer: still 406.
    const res = await fetch(`${server.url}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${key}`, accept: 'text/html' },
      body: JSON.stringify(LIST_TOOLS),
    });
    expect(res.status).to.equal(406);
  });

  it('refuses an unknown API key with invalid_token', async () => {
    const res = await rpc(server.url, LIST_TOOLS, { authorization: 'Bearer quire_nope' });
    expect(res.status).to.equal(401);
    expect(res.headers.get('www-authenticate')).to.match(/error="invalid_token"/);
  });

  it('accepts an API key as ?token= for clients that cannot set headers', async () => {
    const key = await server.key('ann', 'write');
    const client = await mcpClient(server.url, { queryToken: key });
    expect((await call(client, 'capture', { title: 'From a URL token', content: 'x' })).isError).to.not.equal(true);
    await client.close();
  });

  it('refuses anything but an API key in ?token=, and credentials sent twice', async () => {
    const key = await server.key('ann', 'read');
    const oauthLike = await rpc(server.url, LIST_TOOLS, {}, '/mcp?token=qat_abcdef');
    expect(oauthLike.status).to.equal(401);
    expect((await oauthLike.json()).error_description).to.match(/Authorization header/);
    const twice = await rpc(server.url, LIST_TOOLS, { authorization: `Bearer ${key}` }, `/mcp?token=${key}`);
    expect(twice.status).to.equal(400);
  });

  it('answers GET and DELETE without a session with 405, and initialize as JSON (sessions: sessions.test.ts)', async () => {
    const key = await server.key('ann', 'read');
    for (const method of ['GET', 'DELETE']) {
      const res = await fetch(`${server.url}/mcp`, { method, headers: { authorization: `Bearer ${key}` } });
      expect(res.status).to.equal(405);
      expect(res.headers.get('allow')).to.equal('POST');
    }
    const init = await rpc(
      server.url,
      {
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
      },
      { authorization: `Bearer ${key}` },
    );
    expect(init.status).to.equal(200);
    expect(init.headers.get('content-type')).to.match(/application\/json/);
    expect((await init.json()).result.serverInfo.name).to.equal('quire');
  });

  it('refuses a foreign Host header or Origin (DNS rebinding) with 403', async () => {
    const key = await server.key('ann', 'read');
    // fetch forbids setting Host, so speak HTTP directly.
    const host = await new Promise<number>((resolve) => {
      const req = request(
        `${server.url}/mcp`,
        { method: 'POST', headers: { host: 'evil.example:80', 'content-type': 'application/json', authorization: `Bearer ${key}` } },
        (res) => {
          res.resume();
          resolve(res.statusCode!);
        },
      );
      req.end(JSON.stringify(LIST_TOOLS));
    });
    expect(host).to.equal(403);
    const origin = await rpc(server.url, LIST_TOOLS, { authorization: `Bearer ${key}`, origin: 'https://evil.example' });
    expect(origin.status).to.equal(403);
    const same = await rpc(server.url, LIST_TOOLS, { authorization: `Bearer ${key}`, origin: server.url });
    expect(same.status).to.equal(200);
  });

  it('limits the request size (413) and answers broken JSON with a JSON-RPC parse error', async () => {
    const key = await server.key('ann', 'write');
    const huge = {
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'write_page', arguments: { path: 'a.md', content: 'x'.repeat(7 * 1024 * 1024) } },
    };
    const tooBig = await rpc(server.url, huge, { authorization: `Bearer ${key}` });
    expect(tooBig.status).to.equal(413);
    const broken = await rpc(server.url, '{"jsonrpc":', { authorization: `Bearer ${key}` });
    expect(broken.status).to.equal(400);
    expect((await broken.json()).error.code).to.equal(-32700);
  });
});
