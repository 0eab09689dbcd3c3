import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import { LoggingMessageNotificationSchema, type LoggingMessageNotification, type Progress } from '@modelcontextprotocol/sdk/types.js';
import { startTestServer, type TestServer } from '../../helpers/test-server.js';
import { until } from '../../helpers/until.js';
import { call, mcpClient, rpc } from './mcp-client.js';

const REBUILD_WITH_PROGRESS = {
  jsonrpc: '2.0',
  id: 7,
  method: 'tools/call',
  params: { name: 'rebuild_index', arguments: {}, _meta: { progressToken: 'rebuild-1' } },
};

describe('MCP progress notifications and logging/setLevel', () => {
  let server: TestServer;
  let key: string;
  /** An OpenAI-compatible chat endpoint for `ask`, failing on demand. */
  let llm: Server;
  let llmFails = false;
  before(async () => {
    llm = createServer((req, res) => {
      req.resume().on('end', () => {
        if (llmFails) return void res.writeHead(500).end();
        res
          .writeHead(200, { 'content-type': 'application/json' })
          .end(JSON.stringify({ choices: [{ message: { content: 'Every two weeks [1].' } }] }));
      });
    });
    await new Promise<void>((resolve) => llm.listen(0, '127.0.0.1', resolve));
    const llmUrl = `http://127.0.0.1:${(llm.address() as AddressInfo).port}/v1`;
    server = await startTestServer({ QUIRE_LLM_BASE_URL: llmUrl, QUIRE_LLM_MODEL: 'test-model' });
    key = await server.key('pat', 'write');
    for (const name of ['a', 'b', 'c']) {
      const content = `# ${name}\nTurn the compost pile every two weeks.\n`;
      const res = await server.api('/vault/page', { key, method: 'POST', json: { path: `notes/${name}.md`, content } });
      expect(res.status).to.be.below(300);
    }
  });
  after(async () => {
    await server.stop();
    await new Promise<void>((resolve) => llm.close(() => resolve()));
  });

  it('reports rebuild_index progress (pages indexed of all pages) to a client that asked with onprogress', async () => {
    const client = await mcpClient(server.url, { bearer: key });
    const seen: Progress[] = [];
    const result = await client.callTool({ name: 'rebuild_index', arguments: {} }, undefined, { onprogress: (p) => void seen.push(p) });
    expect(result.isError).to.not.equal(true);
    expect(seen.length).to.be.at.least(1);
    expect(seen.at(-1)).to.include({ progress: 3, total: 3 });
    expect(seen.at(-1)!.message).to.match(/3 of 3 pages/);
    await client.close();
  });

  it('reports the steps of ask with a language model: passages found, then the answer generated', async () => {
    const client = await mcpClient(server.url, { bearer: key });
    const seen: Progress[] = [];
    const result = await client.callTool({ name: 'ask', arguments: { question: 'When do I turn the compost?' } }, undefined, {
      onprogress: (p) => void seen.push(p),
    });
    expect(result.structuredContent).to.include({ mode: 'generated' });
    expect(seen.map((p) => [p.progress, p.total])).to.deep.equal([
      [1, 2],
      [2, 2],
    ]);
    expect(seen[0].message).to.match(/passages; generating/);
    await client.close();
  });

  it('tells a session at the default level (warning) that the model failed and the answer is extractive', async () => {
    const client = await mcpClient(server.url, { bearer: key });
    const messages: LoggingMessageNotification['params'][] = [];
    client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => void messages.push(n.params));
    llmFails = true;
    try {
      expect((await call(client, 'ask', { question: 'When do I turn the compost?' })).structuredContent).to.include({ mode: 'extractive' });
    } finally {
      llmFails = false;
    }
    const warned = await until('the warning', 2000, () => messages.find((m) => m.level === 'warning'));
    expect(warned.data).to.include({ tool: 'ask' });
    // The default level holds debug messages back: the call itself was not reported.
    expect(messages.filter((m) => m.level === 'debug')).to.deep.equal([]);
    await client.close();
  });

  it('answers a request with a progress token as SSE when the client reads SSE, and as JSON otherwise', async () => {
    const sse = await rpc(server.url, REBUILD_WITH_PROGRESS, { authorization: `Bearer ${key}` });
    expect(sse.headers.get('content-type')).to.equal('text/event-stream');
    const events = (await sse.text())
      .split('\n')
      .filter((l) => l.startsWith('data: '))
      .map((l) => JSON.parse(l.slice(6)));
    expect(events[0]).to.deep.include({ method: 'notifications/progress' });
    expect(events[0].params).to.include({ progressToken: 'rebuild-1', total: 3 });
    expect(events.at(-1)).to.include({ id: 7 });
    expect(events.at(-1).result.structuredContent.pages).to.equal(3);
    const json = await rpc(server.url, REBUILD_WITH_PROGRESS, { authorization: `Bearer ${key}`, accept: 'application/json' });
    expect(json.headers.get('content-type')).to.match(/^application\/json/);
    expect((await json.json()).result.structuredContent.pages).to.equal(3);
  });

  it('sends each tool call as a notifications/message once the session asked for debug', async () => {
    const client = await mcpClient(server.url, { bearer: key });
    const messages: LoggingMessageNotification['params'][] = [];
    client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => void messages.push(n.params));
    await client.setLoggingLevel('debug');
    await call(client, 'search', { q: 'notes' });
    const logged = await until('a log message', 2000, () => messages.find((m) => (m.data as { tool?: string }).tool === 'search'));
    expect(logged).to.include({ level: 'debug', logger: 'quire' });
    expect(logged.data).to.include({ tool: 'search', outcome: 'ok' });
    await client.setLoggingLevel('error');
    await call(client, 'read_page', { path: 'nope.md' });
    await call(client, 'search', { q: 'after' });
    // Ordered on the stream: had either call been sent, it would precede this one.
    await client.setLoggingLevel('debug');
    await call(client, 'vault_stats', {});
    await until('the vault_stats message', 2000, () => messages.some((m) => (m.data as { tool?: string }).tool === 'vault_stats'));
    expect(messages.map((m) => (m.data as { tool?: string }).tool)).to.deep.equal(['search', 'vault_stats']);
    await client.close();
  });

  it('answers logging/setLevel without a session with {} (nothing to remember it in)', async () => {
    const res = await rpc(
      server.url,
      { jsonrpc: '2.0', id: 1, method: 'logging/setLevel', params: { level: 'debug' } },
      { authorization: `Bearer ${key}` },
    );
    expect(await res.json()).to.deep.include({ result: {} });
  });
});
