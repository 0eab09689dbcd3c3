import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import { catalog } from '../../../server/ops/catalog.js';
import { startTestServer, type TestServer } from '../../helpers/test-server.js';
import { tempDir } from '../../helpers/temp-dir.js';
import { StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { call, mcpClient } from './mcp-client.js';

describe('MCP tools over /mcp', () => {
  let server: TestServer;
  afterEach(() => server?.stop());

  it('lists one tool per catalog operation with an MCP binding, with title, schema and annotations', async () => {
    server = await startTestServer();
    const client = await mcpClient(server.url, { bearer: await server.key('ann', 'write') });
    const { tools } = await client.listTools();
    const expected = catalog.filter((op) => op.mcp);
    expect(tools.map((t) => t.name).sort()).to.deep.equal(expected.map((op) => op.name).sort());
    for (const op of expected) {
      const tool = tools.find((t) => t.name === op.name)!;
      expect(tool.title).to.equal(op.mcp!.title);
      expect(tool.description).to.equal(op.description);
      expect(tool.inputSchema.type).to.equal('object');
      expect(tool.annotations).to.include(op.mcp!.annotations);
    }
    const write = tools.find((t) => t.name === 'write_page')!;
    expect(write.inputSchema.required).to.include.members(['path', 'content']);
    await client.close();
  });

  it('writes and reads a page, returning the JSON result as text and as structured content', async () => {
    server = await startTestServer();
    const client = await mcpClient(server.url, { bearer: await server.key('ann', 'write') });
    const written = await call(client, 'write_page', { path: 'notes/hello', content: '# Hello\n' });
    expect(written.isError).to.not.equal(true);
    expect(written.structuredContent).to.include({ path: 'notes/hello.md', created: true });
    const read = await call(client, 'read_page', { path: 'notes/hello.md' });
    expect(read.structuredContent).to.include({
      title: 'Hello',
      content: '# Hello\n',
      hash: (written.structuredContent as { hash: string }).hash,
    });
    expect(JSON.parse((read.content[0] as { text: string }).text)).to.deep.equal(read.structuredContent);
    // The same vault over REST sees the MCP write.
    const rest = await server.api('/vault/page/notes/hello.md', { key: await server.key('ann', 'read') });
    expect((await rest.json()).content).to.equal('# Hello\n');
    await client.close();
  });

  it('shows a read key only the read tools, and answers a call beyond them with the 403 scope challenge', async () => {
    server = await startTestServer();
    const client = await mcpClient(server.url, { bearer: await server.key('ann', 'read') });
    const { tools } = await client.listTools();
    const readOps = catalog.filter((op) => op.mcp && op.scope === 'read');
    expect(tools.map((t) => t.name).sort()).to.deep.equal(readOps.map((op) => op.name).sort());
    const refused = await call(client, 'write_page', { path: 'x.md', content: 'x' }).catch((err: unknown) => err);
    expect(refused).to.be.instanceOf(StreamableHTTPError).and.include({ code: 403 });
    expect((refused as Error).message).to.include('"required_scope":"mcp:write"');
    const list = await call(client, 'list_pages', {});
    expect(list.structuredContent).to.deep.include({ pages: [] });
    await client.close();
  });

  it('reports domain errors with their code and details (CONFLICT with current_hash, INVALID_PATH)', async () => {
    server = await startTestServer();
    const client = await mcpClient(server.url, { bearer: await server.key('ann', 'write') });
    const first = await call(client, 'write_page', { path: 'a.md', content: 'one' });
    const stale = await call(client, 'write_page', { path: 'a.md', content: 'two', base_hash: null });
    expect(stale.isError).to.equal(true);
    expect(stale.structuredContent).to.include({ code: 'CONFLICT', current_hash: (first.structuredContent as { hash: string }).hash });
    const bad = await call(client, 'read_page', { path: '.git/config' });
    expect(bad.structuredContent).to.include({ code: 'INVALID_PATH' });
    const invalid = await call(client, 'write_page', { path: 'b.md' });
    expect(invalid.structuredContent).to.include({ code: 'INVALID_REQUEST', field: 'content' });
    await client.close();
  });

  it('counts MCP calls against the REST rate-limit buckets and reports RATE_LIMITED with the retry delay', async () => {
    const dir = tempDir();
    const plans = join(dir.path, 'plans.json');
    writeFileSync(plans, JSON.stringify({ tiny: { rest: true, mcp: true, limits: { sync: 5, read: 2, write: 5, expensive: 5 } } }));
    server = await startTestServer({ QUIRE_PLANS_FILE: plans });
    const key = await server.key('ann', 'read', { plan: 'tiny' });
    expect((await server.api('/vault/pages', { key })).status).to.equal(200);
    const client = await mcpClient(server.url, { bearer: key });
    expect((await call(client, 'list_pages', {})).isError).to.not.equal(true);
    const limited = await call(client, 'list_pages', {});
    expect(limited.isError).to.equal(true);
    expect(limited.structuredContent).to.include({ code: 'RATE_LIMITED', bucket: 'read', limit: 2 });
    expect((limited.structuredContent as { retry_after: number }).retry_after).to.be.within(1, 60);
    await client.close();
    dir.cleanup();
  });

  it('refuses a plan without MCP access with PLAN_REQUIRED', async () => {
    server = await startTestServer();
    const client = await mcpClient(server.url, { bearer: await server.key('ann', 'read', { plan: 'free' }) });
    const result = await call(client, 'list_pages', {});
    expect(result.structuredContent).to.include({ code: 'PLAN_REQUIRED' });
    await client.close();
  });

  it('answers an unknown tool with a JSON-RPC error, not a result', async () => {
    server = await startTestServer();
    const client = await mcpClient(server.url, { bearer: await server.key('ann', 'read') });
    let error: Error | undefined;
    await client.callTool({ name: 'no_such_tool', arguments: {} }).catch((err: Error) => (error = err));
    expect(error?.message).to.match(/Unknown tool: no_such_tool/);
    await client.close();
  });
});
