import { expect } from 'chai';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { type GetPromptResult } from '@modelcontextprotocol/sdk/types.js';
import { testAuthor } from '../../helpers/temp-vault.js';
import { startTestServer, type TestServer } from '../../helpers/test-server.js';
import { mcpClient, rpcFailure } from './mcp-client.js';

const SEED: Record<string, string> = {
  'projects/garden.md': '# Garden plan\n\nTomatoes, basil and compost for the garden beds.\n\nTODO: order compost\n',
  'projects/compost.md': '# Compost\n\nCompost for the garden beds: greens and browns. See [[garden]].\n',
  'capture/2026-11-20-seeds.md': '# Seeds to buy\n\nBasil seeds.\n',
};

const texts = (result: GetPromptResult) => result.messages.map((m) => (m.content.type === 'text' ? m.content.text : '')).join('\n');

describe('MCP prompts over /mcp', () => {
  let server: TestServer;
  let client: Client;
  let seedParent: string;

  before(async () => {
    server = await startTestServer();
    const key = await server.key('ann', 'read');
    const { vault, pages } = await server.services.vaults.get('ann');
    seedParent = vault.head;
    const encoder = new TextEncoder();
    await vault.mutate(testAuthor, 'Seed', () => Object.entries(SEED).map(([path, text]) => ({ path, content: encoder.encode(text) })));
    await pages.write(testAuthor, { path: 'projects/garden.md', content: `${SEED['projects/garden.md']}\nSow in March.\n` });
    client = await mcpClient(server.url, { bearer: key });
  });
  after(async () => {
    await client.close();
    await server.stop();
  });

  it('lists the prompts with their arguments described', async () => {
    const { prompts } = await client.listPrompts();
    expect(prompts.map((p) => p.name)).to.deep.equal(['summarise_changes', 'weekly_review', 'related_notes']);
    for (const prompt of prompts) {
      expect(prompt.description, prompt.name).to.be.a('string');
      for (const arg of prompt.arguments ?? []) expect(arg.description, `${prompt.name} ${arg.name}`).to.be.a('string');
    }
    expect(prompts[0].arguments).to.deep.include({ name: 'since', description: prompts[0].arguments![0].description, required: true });
    expect(prompts[2].arguments!.map((a) => [a.name, a.required])).to.deep.equal([['path', true]]);
  });

  it('summarise_changes after a commit embeds the commit log of recent_changes', async () => {
    const result = await client.getPrompt({ name: 'summarise_changes', arguments: { since: seedParent } });
    const text = texts(result);
    expect(text).to.include(`Commits after ${seedParent}`);
    expect(text).to.match(/Seed \(add capture\/2026-11-20-seeds\.md, add projects\/compost\.md, add projects\/garden\.md\)/);
    expect(text).to.include('Update projects/garden.md (modify projects/garden.md)');
    expect(result.messages.every((m) => m.role === 'user')).to.equal(true);
  });

  it('summarise_changes since a date lists the pages updated since, and nothing from the future', async () => {
    expect(texts(await client.getPrompt({ name: 'summarise_changes', arguments: { since: '7 days ago' } }))).to.include(
      '- projects/compost.md "Compost"',
    );
    const future = texts(await client.getPrompt({ name: 'summarise_changes', arguments: { since: '2999-01-01' } }));
    expect(future).to.include('(no pages)');
  });

  it('refuses a missing or unreadable since, and an unknown prompt, with -32602', async () => {
    const missing = await rpcFailure(client.getPrompt({ name: 'summarise_changes', arguments: {} }));
    expect(missing.code).to.equal(-32602);
    expect(missing.message).to.include('since');
    expect((await rpcFailure(client.getPrompt({ name: 'summarise_changes', arguments: { since: 'last tuesday' } }))).code).to.equal(-32602);
    const unknownCommit = await rpcFailure(client.getPrompt({ name: 'summarise_changes', arguments: { since: 'a'.repeat(40) } }));
    expect(unknownCommit.code).to.equal(-32602);
    expect(unknownCommit.data).to.include({ code: 'CURSOR_UNKNOWN' });
    expect((await rpcFailure(client.getPrompt({ name: 'nope' }))).code).to.equal(-32602);
  });

  it('weekly_review embeds the week, the open TODOs and the unfiled captures', async () => {
    const text = texts(await client.getPrompt({ name: 'weekly_review' }));
    expect(text).to.include('- projects/garden.md "Garden plan" (updated');
    expect(text).to.match(/Open loops[^\n]*\n- projects\/garden\.md "Garden plan": /);
    expect(text).to.include('- capture/2026-11-20-seeds.md "Seeds to buy"');
  });

  it('related_notes embeds the page as a resource and the candidates from similar_pages and backlinks', async () => {
    const result = await client.getPrompt({ name: 'related_notes', arguments: { path: 'projects/garden' } });
    expect(result.messages[0].content).to.deep.equal({
      type: 'resource',
      resource: {
        uri: 'quire://page/projects/garden.md',
        mimeType: 'text/markdown',
        text: `${SEED['projects/garden.md']}\nSow in March.\n`,
      },
    });
    const text = texts(result);
    expect(text).to.match(/Pages similar to it:\n- projects\/compost\.md "Compost"/);
    expect(text).to.match(/Pages already linking to it:\n- projects\/compost\.md "Compost"/);
    const missing = await rpcFailure(client.getPrompt({ name: 'related_notes', arguments: { path: 'projects/none.md' } }));
    expect(missing.code).to.equal(-32602);
    expect((await rpcFailure(client.getPrompt({ name: 'related_notes', arguments: { path: ' ' } }))).code).to.equal(-32602);
  });

  it("completes a prompt's page argument with paths and since with the usual choices", async () => {
    const complete = async (name: string, arg: string, value: string) =>
      (await client.complete({ ref: { type: 'ref/prompt', name }, argument: { name: arg, value } })).completion;
    expect(await complete('related_notes', 'path', 'projects/g')).to.deep.equal({
      values: ['projects/garden.md'],
      total: 1,
      hasMore: false,
    });
    expect((await complete('summarise_changes', 'since', '7')).values).to.deep.equal(['7 days ago']);
    expect((await complete('summarise_changes', 'since', '')).values).to.have.length(3);
  });
});
