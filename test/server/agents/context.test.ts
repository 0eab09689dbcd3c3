import { expect } from 'chai';
import { estimateTokens } from '../../../vault-store/context/tokens.js';
import { testAuthor } from '../../helpers/temp-vault.js';
import { startTestServer, type TestServer } from '../../helpers/test-server.js';

const para = (topic: string, i: number) => `Note ${i} on ${topic}: ${'details and more details '.repeat(8)}`;

describe('guide, context packs and whoami over REST', function () {
  this.timeout(30_000);
  let server: TestServer;
  let owner: string;

  before(async () => {
    server = await startTestServer();
    owner = await server.key('dana', 'write', { name: 'laptop' });
    const uv = await server.services.vaults.get('dana');
    await uv.pages.write(testAuthor, { path: 'GUIDE.md', content: '# Guide\n\nAlways link projects to their people.\n' });
    for (let i = 0; i < 12; i++) {
      const body = Array.from({ length: 3 + i * 4 }, (_, j) => para(j % 3 === 0 ? 'compost' : 'weather', j)).join('\n\n');
      await uv.pages.write(testAuthor, {
        path: `garden/page-${i}.md`,
        content: `---\ntags: [garden]\n---\n# Compost ${i}\n\nLinks to [[page-${(i + 1) % 12}]].\n\n${body}\n`,
      });
    }
    await server.services.agents.put('dana', 'scout', { mode: 'propose', read: ['garden/'], write: ['garden/'] });
    await server.services.agents.put('dana', 'readwise', { mode: 'write', read: [''], write: ['readwise/'] });
  });
  after(() => server.stop());

  it('keeps every pack within its budget and cites hashes that write_page accepts as base_hash', async () => {
    for (const max_tokens of [200, 350, 800, 1500, 4000, 12000]) {
      const res = await server.api('/vault/context', { method: 'POST', key: owner, json: { topic: 'compost', max_tokens } });
      expect(res.status).to.equal(200);
      const { pack, pages, tokens } = await res.json();
      expect(tokens).to.be.at.most(max_tokens).and.equal(estimateTokens(pack));
      expect(pages.length, `budget ${max_tokens}`).to.be.greaterThan(0);
      for (const page of pages) expect(pack).to.include(`path: ${page.path} · hash: ${page.hash}`);
    }
    const { pages } = await (await server.api('/vault/context', { method: 'POST', key: owner, json: { topic: 'compost' } })).json();
    const again = await (await server.api('/vault/context', { method: 'POST', key: owner, json: { topic: 'compost' } })).json();
    expect(again.pages).to.deep.equal(pages);
    const target = pages[pages.length - 1];
    const write = await server.api('/vault/page', {
      method: 'POST',
      key: owner,
      json: { path: target.path, content: '---\ntags: [garden]\n---\n# Rewritten\n', base_hash: target.hash },
    });
    expect(write.status, await write.clone().text()).to.equal(200);
  });

  it("opens the guide with the owner's GUIDE.md and tells an agent its rights", async () => {
    const ownerGuide = (await (await server.api('/vault/guide', { key: owner })).json()).guide;
    expect(ownerGuide.startsWith('# Guide\n\nAlways link projects to their people.')).to.equal(true);
    expect(ownerGuide).to.include('`readwise/` mirrors another tool').and.include('#garden (12)').and.include('vault owner');
    const scout = await server.key('dana', 'write', { agent: 'scout', name: 'scout-key' });
    const agentGuide = (await (await server.api('/vault/guide', { key: scout })).json()).guide;
    expect(agentGuide).to.not.include('Always link projects');
    expect(agentGuide).to.include('agent `scout` in `propose` mode').and.include('You can read `garden/`').and.include('create_proposal');
  });

  it('tells who is calling: user, credential, scopes, agent, plan and rate-limit standing', async () => {
    const scout = await server.key('dana', 'read', { agent: 'scout', name: 'scout-read' });
    const first = await (await server.api('/vault/whoami', { key: scout })).json();
    expect(first).to.deep.include({ user: 'dana', scopes: ['read'] });
    expect(first.credential).to.deep.include({ kind: 'api_key', name: 'scout-read', device: false });
    expect(first.agent).to.deep.equal({ name: 'scout', description: '', mode: 'propose', read: ['garden/'], write: ['garden/'] });
    expect(first.plan).to.deep.include({ name: 'personal', rest: true, mcp: true });
    expect(first.rate_limits.read.limit).to.equal(600);
    const second = await (await server.api('/vault/whoami', { key: owner })).json();
    expect(second.agent).to.equal(null);
    expect(second.scopes).to.deep.equal(['capture', 'read', 'write']);
    expect(second.rate_limits.read.remaining).to.equal(first.rate_limits.read.remaining - 1);
  });
});
