import { setTimeout as sleep } from 'node:timers/promises';
import { expect } from 'chai';
import type { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { startTestServer, type TestServer } from '../../helpers/test-server.js';
import { LIST_TOOLS, call, mcpClient, rpc } from './mcp-client.js';

const INITIALIZE = {
  jsonrpc: '2.0',
  id: 0,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
};

/** A raw initialize: the session id the server issued. */
async function initialize(server: TestServer, key: string): Promise<string> {
  const res = await rpc(server.url, INITIALIZE, { authorization: `Bearer ${key}` });
  expect(res.status).to.equal(200);
  await res.body?.cancel();
  return res.headers.get('mcp-session-id')!;
}

function inSession(server: TestServer, key: string, session: string, body: unknown = LIST_TOOLS): Promise<Response> {
  return rpc(server.url, body, { authorization: `Bearer ${key}`, 'mcp-session-id': session });
}

function stream(server: TestServer, key: string, session: string, signal?: AbortSignal): Promise<Response> {
  return fetch(`${server.url}/mcp`, {
    headers: { authorization: `Bearer ${key}`, 'mcp-session-id': session, accept: 'text/event-stream' },
    signal,
  });
}

describe('MCP sessions (Mcp-Session-Id) at /mcp', () => {
  let server: TestServer;
  let key: string;
  before(async () => {
    server = await startTestServer();
    key = await server.key('sam', 'write');
  });
  after(() => server.stop());

  it('issues a session id at initialize, which the SDK client then sends with its requests', async () => {
    const client = await mcpClient(server.url, { bearer: key });
    const id = (client.transport as StreamableHTTPClientTransport).sessionId;
    expect(id).to.match(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect((await call(client, 'capture', { title: 'In a session', content: 'x' })).isError).to.not.equal(true);
    expect((await inSession(server, key, id!)).status).to.equal(200);
    await client.close();
  });

  it('answers an unknown session id with 404 and a JSON-RPC error, on POST, GET and DELETE', async () => {
    const unknown = crypto.randomUUID();
    const post = await inSession(server, key, unknown);
    expect(post.status).to.equal(404);
    expect((await post.json()).error.code).to.equal(-32001);
    expect((await stream(server, key, unknown)).status).to.equal(404);
    const del = await fetch(`${server.url}/mcp`, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${key}`, 'mcp-session-id': unknown },
    });
    expect(del.status).to.equal(404);
  });

  it('ends a session on DELETE: its id is then unknown', async () => {
    const client = await mcpClient(server.url, { bearer: key });
    const transport = client.transport as StreamableHTTPClientTransport;
    const id = transport.sessionId!;
    await transport.terminateSession();
    expect((await inSession(server, key, id)).status).to.equal(404);
    await client.close();
  });

  it('keeps requests without a session stateless: answered as JSON, no session issued', async () => {
    const res = await rpc(server.url, LIST_TOOLS, { authorization: `Bearer ${key}` });
    expect(res.status).to.equal(200);
    expect(res.headers.get('content-type')).to.match(/^application\/json/);
    expect(res.headers.get('mcp-session-id')).to.equal(null);
    expect((await res.json()).result.tools.length).to.be.above(0);
  });

  it("opens the session's event stream on GET only for a client that accepts text/event-stream", async () => {
    const id = await initialize(server, key);
    const refused = await fetch(`${server.url}/mcp`, {
      headers: { authorization: `Bearer ${key}`, 'mcp-session-id': id, accept: 'application/json' },
    });
    expect(refused.status).to.equal(406);
    const abort = new AbortController();
    const opened = await stream(server, key, id, abort.signal);
    expect(opened.status).to.equal(200);
    expect(opened.headers.get('content-type')).to.equal('text/event-stream');
    // A second GET replaces the first, whose stream then ends.
    const second = await stream(server, key, id, abort.signal);
    expect(second.status).to.equal(200);
    expect(await opened.text()).to.equal('');
    const head = await fetch(`${server.url}/mcp`, { method: 'HEAD', headers: { authorization: `Bearer ${key}`, 'mcp-session-id': id } });
    expect(head.status).to.equal(405);
    abort.abort();
  });

  it("refuses another user's token with my session id as an unknown session (404), and leaves my session alive", async () => {
    const other = await server.key('tom', 'write');
    const id = await initialize(server, key);
    expect((await inSession(server, other, id)).status).to.equal(404);
    expect((await stream(server, other, id)).status).to.equal(404);
    const del = await fetch(`${server.url}/mcp`, { method: 'DELETE', headers: { authorization: `Bearer ${other}`, 'mcp-session-id': id } });
    expect(del.status).to.equal(404);
    expect((await inSession(server, key, id)).status).to.equal(200);
  });

  describe('with a short idle time and two sessions per user', () => {
    let quick: TestServer;
    let quickKey: string;
    before(async () => {
      quick = await startTestServer({}, (c) => ({ ...c, mcpSessions: { idleMs: 300, perUser: 2, max: 100 } }));
      quickKey = await quick.key('ida', 'read');
    });
    after(() => quick.stop());

    it('expires an idle session, but not one whose GET stream is open', async () => {
      const idle = await initialize(quick, quickKey);
      const streaming = await initialize(quick, quickKey);
      // Held to the end: fetch cancels the body of a response collected as garbage, which would close the stream.
      const open = await stream(quick, quickKey, streaming);
      expect(open.status).to.equal(200);
      await sleep(450);
      expect((await inSession(quick, quickKey, idle)).status).to.equal(404);
      expect((await inSession(quick, quickKey, streaming)).status).to.equal(200);
      await open.body!.cancel();
    });

    it("ends a user's least recently used session when they open one more than allowed", async () => {
      const [first, second] = [await initialize(quick, quickKey), await initialize(quick, quickKey)];
      expect((await inSession(quick, quickKey, first)).status).to.equal(200);
      await initialize(quick, quickKey);
      expect((await inSession(quick, quickKey, second)).status).to.equal(404);
      expect((await inSession(quick, quickKey, first)).status).to.equal(200);
    });
  });
});
