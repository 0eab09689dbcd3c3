import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { MCP_IMAGE_MAX_BYTES } from '../../../server/ops/file-read.js';
import { startTestServer, type TestServer } from '../../helpers/test-server.js';
import { call, mcpClient } from './mcp-client.js';

const PNG = Buffer.concat([Buffer.from('89504e470d0a1a0a', 'hex'), randomBytes(500)]);

describe('MCP read_file and write_file', () => {
  let server: TestServer;
  let key: string;
  let client: Client;

  before(async () => {
    server = await startTestServer({}, (c) => {
      c.plans.personal.max_file_bytes = 2 * 1024 * 1024;
      return c;
    });
    key = await server.key('mia', 'write');
    client = await mcpClient(server.url, { bearer: key });
    await client.listTools();
  });
  after(async () => {
    await client.close();
    await server.stop();
  });

  const put = (path: string, body: Buffer) => server.api(`/vault/file/${path}`, { method: 'PUT', key, body });

  it('writes a file from base64, which REST then serves byte for byte', async () => {
    const result = await call(client, 'write_file', { path: 'img/pixel.png', content_base64: PNG.toString('base64') });
    expect(result.isError, JSON.stringify(result.structuredContent)).to.not.equal(true);
    expect(result.structuredContent).to.include({ path: 'img/pixel.png', size: PNG.length, kind: 'attachment', created: true });
    const served = await server.api('/vault/file/img/pixel.png', { key });
    expect(Buffer.from(await served.arrayBuffer()).equals(PNG)).to.equal(true);
    const stale = await call(client, 'write_file', { path: 'img/pixel.png', content_base64: 'AA==', base_hash: null });
    expect(stale.structuredContent).to.include({ code: 'CONFLICT' });
    const garbage = await call(client, 'write_file', { path: 'img/x.png', content_base64: 'not base64!' });
    expect(garbage.structuredContent).to.include({ code: 'INVALID_REQUEST' });
  });

  it('refuses a write over max_file_bytes with PAYLOAD_TOO_LARGE naming the limit', async () => {
    const big = Buffer.alloc(2 * 1024 * 1024 + 1).toString('base64');
    const result = await call(client, 'write_file', { path: 'big.bin', content_base64: big });
    expect(result.isError).to.equal(true);
    expect(result.structuredContent).to.include({ code: 'PAYLOAD_TOO_LARGE', limit: 2 * 1024 * 1024 });
  });

  it('returns an image as image content, without its bytes in the structured result', async () => {
    await put('img/a.png', PNG);
    const result = await call(client, 'read_file', { path: 'img/a.png' });
    expect(result.content).to.deep.equal([{ type: 'image', data: PNG.toString('base64'), mimeType: 'image/png' }]);
    expect(result.structuredContent).to.include({ path: 'img/a.png', returned_as: 'image', mime_type: 'image/png', size: PNG.length });
    expect(result.structuredContent).to.not.have.property('data');
  });

  it('returns text-like files as text, and anything else as a resource link with size and type', async () => {
    await put('data/table.csv', Buffer.from('a,b\n1,2\n'));
    const text = await call(client, 'read_file', { path: 'data/table.csv' });
    expect(text.content).to.deep.equal([{ type: 'text', text: 'a,b\n1,2\n' }]);
    expect(text.structuredContent).to.include({ returned_as: 'text', mime_type: 'text/csv' });

    await put('docs/manual.pdf', Buffer.from('%PDF-1.7 binary'));
    const pdf = await call(client, 'read_file', { path: 'docs/manual.pdf' });
    expect(pdf.content).to.deep.equal([
      {
        type: 'resource_link',
        uri: `${server.services.config.baseUrl}/vault/file/docs/manual.pdf`,
        name: 'docs/manual.pdf',
        mimeType: 'application/pdf',
        size: 15,
      },
    ]);
  });

  it('refuses an image over the MCP image cap with a clear error rather than downscaling it', async function () {
    this.timeout(30_000);
    // Over a plan that allows it: the cap is MCP's, not the plan's.
    const owner = await server.key('max', 'write', { plan: 'pro' });
    const huge = Buffer.alloc(MCP_IMAGE_MAX_BYTES + 1);
    expect((await server.api('/vault/file/photo.jpg', { method: 'PUT', key: owner, body: huge })).status).to.equal(201);
    const other = await mcpClient(server.url, { bearer: owner });
    const result = await call(other, 'read_file', { path: 'photo.jpg' });
    await other.close();
    expect(result.isError).to.equal(true);
    expect(result.structuredContent).to.include({ code: 'PAYLOAD_TOO_LARGE', limit: MCP_IMAGE_MAX_BYTES });
    expect(String((result.structuredContent as { message: string }).message)).to.match(/GET \/vault\/file\/photo\.jpg/);
  });
});
