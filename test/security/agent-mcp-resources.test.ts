import { expect } from 'chai';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { pageUri } from '../../server/mcp/resources.js';
import { testAuthor } from '../helpers/temp-vault.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';
import { mcpClient } from '../server/mcp/mcp-client.js';

/**
 * An agent limited to projects/ must learn nothing of secret/ through resources, prompts or
 * completions: "zanzibarite" is only ever written under secret/ (titles, bodies, links).
 */
const SEED: Record<string, string> = {
  'secret/zanzibarite-mine.md': '# Zanzibarite mine\n\nThe zanzibarite lode, near the treasure. TODO: dig. See [[alpha]].\n',
  'secret/treasure.md': '# Treasure\n\nzanzibarite lode treasure mine\n',
  'projects/alpha.md': '# Alpha\n\nThe alpha project, near the lode and the treasure; see [[treasure]]. TODO: plan.\n',
  'projects/beta.md': '# Beta\n\nBeta builds on [[alpha]].\n',
};
const HIDDEN = ['secret', 'zanzibarite'];

function leaks(body: unknown): string[] {
  const text = JSON.stringify(body).toLowerCase();
  return HIDDEN.filter((word) => text.includes(word));
}

async function failure(promise: Promise<unknown>): Promise<{ code: number; message: string; data: unknown }> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).to.be.instanceOf(McpError);
  const { code, message, data } = err as McpError;
  return { code, message, data };
}

describe('attack: an agent limited to projects/ using MCP resources, prompts and completions', function () {
  this.timeout(30_000);
  let server: TestServer;
  let mcp: Client;
  let first: string;

  before(async () => {
    server = await startTestServer();
    await server.key('dana', 'write', { plan: 'pro' });
    const { vault } = await server.services.vaults.get('dana');
    first = vault.head;
    const encoder = new TextEncoder();
    await vault.mutate(testAuthor, 'Seed secret/ and projects/', () =>
      Object.entries(SEED).map(([path, text]) => ({ path, content: encoder.encode(text) })),
    );
    await server.services.agents.put('dana', 'proj', { mode: 'read', read: ['projects/'], write: [] });
    mcp = await mcpClient(server.url, { bearer: await server.key('dana', 'read', { agent: 'proj', name: 'proj-key' }) });
  });
  after(async () => {
    await mcp.close();
    await server.stop();
  });

  it('lists and reads only readable pages; a hidden page is exactly a missing one', async () => {
    const listed = await mcp.listResources();
    expect(listed.resources.map((r) => r.name)).to.include.members(['projects/alpha.md', 'projects/beta.md']);
    expect(leaks(listed)).to.deep.equal([]);
    for (const uri of ['quire://guide', 'quire://context-pack', 'quire://context-pack?topic=lode%20treasure%20mine']) {
      expect(leaks(await mcp.readResource({ uri })), uri).to.deep.equal([]);
    }
    const missing = await failure(mcp.readResource({ uri: pageUri('projects/gone.md') }));
    for (const path of ['secret/treasure.md', 'secret/zanzibarite-mine']) {
      const uri = pageUri(path);
      expect(await failure(mcp.readResource({ uri }))).to.deep.equal({ ...missing, data: { uri } });
    }
    const encoded = await failure(mcp.readResource({ uri: 'quire://page/secret%2Ftreasure.md' }));
    expect(encoded.code).to.equal(-32002);
  });

  it('completes no hidden path, whatever is typed', async () => {
    for (const value of ['', 's', 'secret/', 'secret/z', 'SECRET/', 'z']) {
      const page = await mcp.complete({ ref: { type: 'ref/resource', uri: 'quire://page/{path}' }, argument: { name: 'path', value } });
      const prompt = await mcp.complete({ ref: { type: 'ref/prompt', name: 'related_notes' }, argument: { name: 'path', value } });
      expect(leaks([page, prompt]), value).to.deep.equal([]);
    }
  });

  it('builds prompts from readable pages only, and refuses a hidden page like a missing one', async () => {
    for (const [name, args] of [
      ['summarise_changes', { since: first }],
      ['summarise_changes', { since: '1 day ago' }],
      ['weekly_review', {}],
      ['related_notes', { path: 'projects/alpha.md' }],
    ] as const) {
      const result = await mcp.getPrompt({ name, arguments: args });
      expect(leaks(result), `${name} ${JSON.stringify(args)}`).to.deep.equal([]);
    }
    const missing = await failure(mcp.getPrompt({ name: 'related_notes', arguments: { path: 'projects/gone.md' } }));
    const hidden = await failure(mcp.getPrompt({ name: 'related_notes', arguments: { path: 'secret/treasure.md' } }));
    expect(hidden.code).to.equal(missing.code);
    expect(JSON.stringify(hidden).replaceAll('secret/treasure', 'projects/gone')).to.equal(JSON.stringify(missing));
  });
});
