import { expect } from 'chai';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { type Resource } from '@modelcontextprotocol/sdk/types.js';
import { pageUri, pathOfUri } from '../../../server/mcp/resources.js';
import { testAuthor } from '../../helpers/temp-vault.js';
import { startTestServer, type TestServer } from '../../helpers/test-server.js';
import { mcpClient, rpcFailure } from './mcp-client.js';

const ODD = 'notes/a b é.md';
const ODD_TEXT = '---\ntags: [odd]\n---\n# Odd name\n\nSpaces and an accent.\n';
const BULK = Array.from({ length: 103 }, (_, i) => `bulk/p${String(i).padStart(3, '0')}.md`);

describe('MCP resources and completions over /mcp', () => {
  let server: TestServer;
  let client: Client;

  before(async () => {
    server = await startTestServer();
    const key = await server.key('ann', 'read');
    const { vault } = await server.services.vaults.get('ann');
    const seed: Record<string, string> = {
      [ODD]: ODD_TEXT,
      'projects/alpha.md': '# Alpha\n\nThe alpha plan.\n',
      'projects/beta.md': '# Beta\n\nAfter [[alpha]].\n',
      'GUIDE.md': '# Guide\n\nFile projects under projects/.\n',
      ...Object.fromEntries(BULK.map((p) => [p, `# ${p}\n`])),
    };
    // One commit for all of them: a hundred commits would be most of this file's time.
    const encoder = new TextEncoder();
    await vault.mutate(testAuthor, 'Seed', () => Object.entries(seed).map(([path, text]) => ({ path, content: encoder.encode(text) })));
    client = await mcpClient(server.url, { bearer: key });
  });
  after(async () => {
    await client.close();
    await server.stop();
  });

  it('lists every page sorted by path over pages of 100, with the guide and the context pack first', async () => {
    const first = await client.listResources();
    expect(first.resources.slice(0, 2).map((r) => r.uri)).to.deep.equal(['quire://guide', 'quire://context-pack']);
    expect(first.nextCursor).to.be.a('string');
    const second = await client.listResources({ cursor: first.nextCursor });
    expect(second.nextCursor).to.equal(undefined);
    expect(second.resources.map((r) => r.uri)).to.not.include('quire://guide');
    const pages: Resource[] = [...first.resources.slice(2), ...second.resources];
    expect(first.resources.length - 2).to.equal(100);
    const all = ['GUIDE.md', ...BULK, ODD, 'projects/alpha.md', 'projects/beta.md'];
    expect(pages.map((r) => r.name)).to.deep.equal(all);
    const odd = pages.find((r) => r.name === ODD)!;
    expect(odd).to.deep.include({ uri: 'quire://page/notes/a%20b%20%C3%A9.md', title: 'Odd name', mimeType: 'text/markdown' });
    expect(odd.size).to.equal(Buffer.byteLength(ODD_TEXT));
    expect(Date.parse(odd.annotations!.lastModified!)).to.be.greaterThan(0);
  });

  it('refuses a cursor it did not issue as invalid params', async () => {
    const err = await rpcFailure(client.listResources({ cursor: 'not a cursor!' }));
    expect(err.code).to.equal(-32602);
    expect(err.data).to.include({ code: 'INVALID_CURSOR' });
  });

  it('answers a refusal of the one door as -32603 carrying the REST error body', async () => {
    const free = await mcpClient(server.url, { bearer: await server.key('fred', 'read', { plan: 'free' }) });
    const err = await rpcFailure(free.listResources());
    await free.close();
    expect(err.code).to.equal(-32603);
    expect(err.data).to.deep.equal({ code: 'PLAN_REQUIRED', message: 'The free plan does not include MCP access', plan: 'free' });
  });

  it('reads a page with a space and an accent in its path as its whole markdown source', async () => {
    const uri = pageUri(ODD);
    const read = await client.readResource({ uri });
    expect(read.contents).to.deep.equal([{ uri, mimeType: 'text/markdown', text: ODD_TEXT }]);
    // A client that expanded the template strictly (every "/" as %2F) reaches the same page.
    const strict = await client.readResource({ uri: `quire://page/${encodeURIComponent(ODD)}` });
    expect(strict.contents[0]).to.include({ text: ODD_TEXT });
    expect(pathOfUri(uri)).to.equal(ODD);
  });

  it('answers a missing page with -32002 Resource not found and the uri', async () => {
    const uri = pageUri('projects/gamma.md');
    const err = await rpcFailure(client.readResource({ uri }));
    expect(err.code).to.equal(-32002);
    expect(err.data).to.deep.equal({ uri });
    expect((await rpcFailure(client.readResource({ uri: 'quire://nothing' }))).code).to.equal(-32002);
  });

  it('refuses paths the page-path rules refuse as invalid params', async () => {
    for (const uri of ['quire://page/..%2FGUIDE.md', 'quire://page/projects//alpha.md', 'quire://page/', 'quire://page/%E0%A4%A']) {
      expect((await rpcFailure(client.readResource({ uri }))).code, uri).to.equal(-32602);
    }
  });

  it('lists the page template and the context-pack template', async () => {
    const { resourceTemplates } = await client.listResourceTemplates();
    expect(resourceTemplates.map((t) => t.uriTemplate)).to.deep.equal(['quire://page/{path}', 'quire://context-pack{?topic}']);
    expect(resourceTemplates[0].description).to.be.a('string');
  });

  it('completes page paths by prefix, ignoring case, within the folder typed', async () => {
    const ref = { type: 'ref/resource' as const, uri: 'quire://page/{path}' };
    const complete = async (value: string) => (await client.complete({ ref, argument: { name: 'path', value } })).completion;
    expect(await complete('proj')).to.deep.equal({ values: ['projects/alpha.md', 'projects/beta.md'], total: 2, hasMore: false });
    expect((await complete('NOTES/A')).values).to.deep.equal([]);
    expect((await complete('notes/A')).values).to.deep.equal([ODD]);
    const bulk = await complete('bulk/p');
    expect(bulk.values).to.have.length(100);
    expect(bulk).to.include({ total: 103, hasMore: true });
    expect(await complete('../')).to.deep.equal({ values: [], total: 0, hasMore: false });
  });

  it('reads the guide and the context pack, on a default topic or the one given', async () => {
    const guide = (await client.readResource({ uri: 'quire://guide' })).contents[0];
    expect(guide).to.include({ uri: 'quire://guide', mimeType: 'text/markdown' });
    expect(guide.text).to.include('File projects under projects/.');
    const pack = (await client.readResource({ uri: 'quire://context-pack?topic=alpha%20plan' })).contents[0];
    expect(pack.text).to.match(/^# Context: alpha plan/);
    expect(pack.text).to.include('The alpha plan.');
    const overview = (await client.readResource({ uri: 'quire://context-pack' })).contents[0];
    expect(overview.text).to.match(/^# Context: overview/);
  });
});
