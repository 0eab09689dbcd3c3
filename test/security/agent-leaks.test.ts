import { expect } from 'chai';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { catalog } from '../../server/ops/catalog.js';
import type { AnyOperation } from '../../server/ops/operation.js';
import { restRequest } from '../helpers/rest-request.js';
import { testAuthor } from '../helpers/temp-vault.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';
import { call, mcpClient } from '../server/mcp/mcp-client.js';

/**
 * An agent limited to projects/ must learn nothing of secret/: not a path, not a word, not
 * a count. "zanzibarite" is only ever written under secret/ (titles, bodies, tags, links);
 * projects/ holds "zanzibar", one typo away from it.
 */
const SEED: Record<string, string> = {
  'secret/zanzibarite-mine.md':
    '---\ntags: [zanzibarite]\n---\n# Zanzibarite mine\n\nThe zanzibarite lode. See [[zanzibarite-notes]], [[alpha]] and [[zanzibarite-gone]].\n',
  'secret/zanzibarite-notes.md': '# Zanzibarite notes\n\nzanzibarite zanzibarite #zanzibarite/raw\n',
  'secret/treasure.md': '# Treasure\n\nzanzibarite\n\n## Zanzibarite dig\n- [ ] dig the zanzibarite lode 📅 2026-12-01 #zanzibarite\n',
  'secret/x.md': '# Draft\n\nTo be filed.\n',
  'projects/alpha.md': '---\ntags: [shared]\n---\n# Alpha\n\nThe alpha project, with [[beta]]; see [[treasure]] and [[nowhere]].\n',
  'projects/beta.md': '# Beta\n\nBeta builds on [[alpha]]. Notes from the zanzibar trip.\n',
};
const HIDDEN = ['secret/', 'zanzibarite'];

function leaks(body: unknown): string[] {
  const text = (typeof body === 'string' ? body : JSON.stringify(body)).toLowerCase();
  return HIDDEN.filter((word) => text.includes(word));
}

/**
 * Every read operation, with inputs that carry nothing hidden: no response may then name
 * anything hidden. An operation missing here fails the suite.
 */
const READS: Record<string, Record<string, unknown>[]> = {
  list_pages: [{}, { limit: 1 }],
  list_files: [{}, { limit: 1 }, { prefix: 'secret' }],
  // Raw bytes on REST, not JSON: its hidden paths are among the PROBES below.
  read_file: [],
  read_page: [{ path: 'projects/alpha.md' }],
  read_pages: [{ paths: ['projects/alpha.md', 'projects/beta.md'] }],
  page_outline: [{ path: 'projects/alpha.md' }],
  search: [{ q: 'zanzibarit' }, { q: 'zanzib' }, { q: 'zanzibari*' }, { q: 'lode' }, { q: 'notes' }, { q: 'alpha', tag: 'zanzibar' }],
  similar_pages: [{ path: 'projects/alpha.md' }, { text: 'the lode of notes, a mine of treasure' }],
  ask: [{ question: 'Where is the lode?' }, { question: 'What are the notes about?' }],
  list_tags: [{}],
  query_pages: [
    {},
    { from: 'outgoing([[alpha]])' },
    { from: '#zanzibarite' },
    { fields: ['links', 'backlinks_count', 'tags'], sort: [{ field: 'backlinks_count', dir: 'desc' }] },
    { where: { in: ['[[treasure]]', { var: 'links' }] }, fields: ['links'] },
  ],
  list_tasks: [{}, { status: 'all' }, { text: 'lode' }, { tag: 'zanzibarite' }, { due_before: '2027-01-01' }],
  graph: [{}, { path: 'projects/alpha.md', depth: 5 }],
  backlinks: [{ path: 'projects/alpha.md' }],
  lint: [{}],
  vault_stats: [{}],
  vault_health: [{}],
  recent_changes: [{}],
  // projects/y.md came from secret/x.md: its history must start at the move, as a create.
  page_history: [{}, { path: 'projects/y.md' }, { path: 'projects/alpha.md', since: '2000-01-01' }],
  diff_page: [
    { path: 'projects/y.md', from: '2000-01-01' },
    { path: 'projects/y.md', from: '2999-01-01' },
  ],
  list_deleted: [{}],
  list_proposals: [{}],
  whoami: [{}],
  guide: [{}],
  context_pack: [{ topic: 'lode notes treasure mine', max_tokens: 4000 }],
  // Whole-vault or owner-only: refused to this agent.
  export: [{}],
  list_agents: [{}],
  // No JSON route or tool (test/server/git-http/clone.test.ts); needs a device key or a proposal id.
  git_clone: [],
  ack_changes: [],
  // A stream, not JSON: test/security/live-changes-agents.test.ts.
  change_events: [],
  get_proposal: [],
};

/** Operations that take a path: a hidden page must answer exactly like a missing one. */
const PROBES: Record<string, (path: string) => Record<string, unknown>> = {
  read_page: (path) => ({ path }),
  read_file: (path) => ({ path }),
  read_pages: (path) => ({ paths: ['projects/beta.md', path] }),
  page_outline: (path) => ({ path }),
  backlinks: (path) => ({ path }),
  query_pages: (path) => ({ from: `[[${path}]]` }),
  graph: (path) => ({ path }),
  similar_pages: (path) => ({ path }),
  context_pack: (path) => ({ topic: 'beta', paths: [path] }),
  page_history: (path) => ({ path }),
  diff_page: (path) => ({ path, from: '2999-01-01' }),
  restore_page: (path) => ({ path, at: '2999-01-01' }),
};

describe('attack: an agent limited to projects/ learning about secret/', function () {
  this.timeout(60_000);
  let server: TestServer;
  let owner: string;
  let agent: string;
  let mcp: Client;
  let first: string;
  let move: { commit: string };

  const as = async (key: string, op: AnyOperation, input: Record<string, unknown>) => {
    const { path, init } = restRequest(op, input);
    const res = await server.api(path, { ...init, key });
    return { status: res.status, body: await res.json() };
  };
  const opNamed = (name: string) => catalog.find((op) => op.name === name)!;

  before(async () => {
    server = await startTestServer();
    owner = await server.key('dana', 'write', { name: 'laptop', plan: 'pro' });
    const uv = await server.services.vaults.get('dana');
    first = uv.vault.head;
    for (const [path, content] of Object.entries(SEED)) await uv.pages.write(testAuthor, { path, content });
    await server.services.agents.put('dana', 'proj', { mode: 'write', read: ['projects/'], write: ['projects/'] });
    agent = await server.key('dana', 'write', { agent: 'proj', name: 'proj-key' });
    mcp = await mcpClient(server.url, { bearer: agent });
    // Last, so head is this commit: its message names secret/x.md.
    const moved = await server.api('/vault/move', { method: 'POST', key: owner, json: { from: 'secret/x.md', to: 'projects/y.md' } });
    expect(moved.status).to.equal(200);
    move = await moved.json();
  });
  after(async () => {
    await mcp.close();
    await server.stop();
  });

  it('has a case for every read operation', () => {
    expect(catalog.filter((op) => op.scope === 'read' && !(op.name in READS)).map((op) => op.name)).to.deep.equal([]);
  });

  it('names nothing hidden in any response of any read operation over REST', async () => {
    for (const [name, inputs] of Object.entries(READS)) {
      for (const input of inputs) {
        const { status, body } = await as(agent, opNamed(name), input);
        expect(leaks(body), `${name} ${JSON.stringify(input)} → ${status} ${JSON.stringify(body).slice(0, 400)}`).to.deep.equal([]);
        expect(status, name).to.not.equal(500);
      }
    }
  });

  it('counts no hidden task: list_tasks totals only what the agent reads', async () => {
    const mine = (await as(agent, opNamed('list_tasks'), { status: 'all' })).body;
    expect([mine.total, mine.tasks, mine.next_cursor]).to.deep.equal([0, [], null]);
    expect((await as(owner, opNamed('list_tasks'), { status: 'all' })).body.total).to.equal(1);
  });

  it('names nothing hidden over MCP either: search, changes, health', async () => {
    for (const [name, input] of [
      ['search', { q: 'zanzibarit' }],
      ['recent_changes', {}],
      ['recent_changes', { since: first }],
      ['vault_health', {}],
      ['vault_stats', {}],
    ] as const) {
      const result = await call(mcp, name, input);
      expect(result.isError, name).to.not.equal(true);
      expect(leaks(result), `${name} → ${JSON.stringify(result).slice(0, 400)}`).to.deep.equal([]);
    }
  });

  it('suggests and completes only words of readable pages for a misspelt hidden word', async () => {
    const suggested = async (key: string, q: string) => (await as(key, opNamed('search'), { q })).body.suggestion;
    // A trailing space: a whole word, not one being typed (which would be completed instead).
    expect(await suggested(owner, 'zanzibarit ')).to.equal('zanzibarite ');
    expect(await suggested(agent, 'zanzibarit ')).to.equal('zanzibar ');
    expect(await suggested(agent, 'zanzibarit')).to.equal('zanzibar');
    const overMcp = (await call(mcp, 'search', { q: 'zanzibarit ' })).structuredContent as { suggestion?: string };
    expect(overMcp.suggestion).to.equal('zanzibar ');
  });

  it('answers a hidden page exactly like a missing one in every operation that takes a path', async () => {
    for (const [name, input] of Object.entries(PROBES)) {
      const hidden = await as(agent, opNamed(name), input('secret/treasure.md'));
      const missing = await as(agent, opNamed(name), input('secret/nothing.md'));
      expect(JSON.stringify(hidden).replaceAll('secret/treasure.md', 'secret/nothing.md'), name).to.equal(JSON.stringify(missing));
    }
  });

  it('treats a link to a hidden page like a link to no page in lint, graph and stats', async () => {
    const lint = (await as(agent, opNamed('lint'), {})).body;
    const broken = lint.findings.filter((f: { rule: string; path: string }) => f.rule === 'broken-link' && f.path === 'projects/alpha.md');
    expect(broken.map((f: { message: string }) => f.message)).to.deep.equal([
      '[[nowhere]] matches no page',
      '[[treasure]] matches no page',
    ]);
    const graph = (await as(agent, opNamed('graph'), {})).body;
    expect(graph.unresolved).to.deep.equal([
      { source: 'projects/alpha.md', target: 'nowhere' },
      { source: 'projects/alpha.md', target: 'treasure' },
    ]);
    expect((await as(agent, opNamed('vault_stats'), {})).body).to.include({ pages: 3, unresolved_links: 2 });
  });

  it("shows the owner's move out of secret/ with its commit, time and actor but not its message", async () => {
    const ownerView = (await as(owner, opNamed('recent_changes'), { since: first })).body.changes.at(-1);
    expect(ownerView).to.include({ commit: move.commit, message: 'Move secret/x.md to projects/y.md' });
    const agentView = (await as(agent, opNamed('recent_changes'), { since: first })).body.changes.at(-1);
    expect(agentView).to.deep.equal({
      ...ownerView,
      message: 'Changes outside your folders',
      paths: [
        {
          path: 'projects/y.md',
          op: 'add',
          hash: ownerView.paths.find((p: { path: string }) => p.path === 'projects/y.md').hash,
          kind: 'page',
        },
      ],
    });
    // Without a cursor: a snapshot at head, which is the move.
    const snapshot = (await as(agent, opNamed('recent_changes'), {})).body;
    expect(snapshot.changes[0]).to.include({ commit: move.commit, message: 'Changes outside your folders' });
  });

  it('counts only readable pages in stats and health, and gives no whole-vault figures', async () => {
    const stats = (await as(agent, opNamed('vault_stats'), {})).body;
    expect(stats).to.include({ pages: 3 }).and.not.to.have.any.keys('commits', 'disk_bytes');
    expect((await as(owner, opNamed('vault_stats'), {})).body)
      .to.include({ pages: 6 })
      .and.to.have.all.keys(...Object.keys(stats), 'commits', 'disk_bytes');
    const health = (await as(agent, opNamed('vault_health'), {})).body;
    expect(health.index.pages).to.equal(3);
    expect(health.git).not.to.have.any.keys('queued_writes');
    expect(health.watcher).to.have.all.keys('watching');
    expect(health, 'memory would tell the size of the whole vault').not.to.have.property('memory');
    expect((await as(owner, opNamed('vault_health'), {})).body.index.pages).to.equal(6);
  });

  it('ends list paging at the last readable page, whatever hidden pages sort after it', async () => {
    await (await server.services.vaults.get('dana')).pages.write(testAuthor, { path: 'zz-secret/later.md', content: 'x' });
    const answers: string[][] = [];
    let cursor: string | undefined;
    do {
      const { body } = await as(agent, opNamed('list_pages'), { limit: 1, ...(cursor ? { cursor } : {}) });
      answers.push(body.pages.map((p: { path: string }) => p.path));
      cursor = body.next_cursor ?? undefined;
    } while (cursor);
    // A last answer of nothing would say that more pages exist, hidden ones.
    expect(answers).to.deep.equal([['projects/alpha.md'], ['projects/beta.md'], ['projects/y.md']]);
  });

  it('answers graph and backlinks on a hidden attachment exactly like a missing one, and shows no hidden embed', async () => {
    const put = await server.api('/vault/file/secret/plan.png', { method: 'PUT', key: owner, body: Buffer.from('png') });
    expect(put.status).to.equal(201);
    const page = { path: 'secret/embeds.md', content: '![[plan.png]] ![](../projects/open.png)' };
    await (await server.services.vaults.get('dana')).pages.write(testAuthor, page);
    for (const name of ['graph', 'backlinks']) {
      const hidden = await as(agent, opNamed(name), { path: 'secret/plan.png' });
      const missing = await as(agent, opNamed(name), { path: 'secret/none.png' });
      expect(hidden.status, name).to.equal(404);
      expect(JSON.stringify(hidden).replaceAll('secret/plan.png', 'secret/none.png'), name).to.equal(JSON.stringify(missing));
    }
    expect(JSON.stringify((await as(agent, opNamed('graph'), {})).body)).not.to.match(/plan\.png|embeds/);
  });
});

/** A valid input for every operation beyond reading: refusals must come from the agent rules. */
const WRITES: Record<string, Record<string, unknown>> = {
  write_page: { path: 'projects/new.md', content: 'x' },
  delete_page: { path: 'projects/alpha.md' },
  write_file: { path: 'projects/diagram.png', content_base64: 'AA==' },
  delete_file: { path: 'projects/alpha.md' },
  capture: { title: 'idea', content: 'x' },
  append_to_page: { path: 'projects/alpha.md', text: 'more' },
  patch_page: { path: 'projects/alpha.md', find: 'alpha', replace: 'omega', base_hash: '0'.repeat(40) },
  move_page: { from: 'projects/alpha.md', to: 'projects/omega.md' },
  set_task_status: { path: 'projects/alpha.md', line: 1, status: 'done', base_hash: '0'.repeat(40) },
  rebuild_index: {},
  put_agent: { name: 'other', mode: 'read' },
  delete_agent: { name: 'other' },
  create_proposal: { title: 'idea', changes: [{ path: 'projects/new.md', content: 'x' }] },
  restore_page: { path: 'projects/alpha.md', at: '2999-01-01' },
  approve_proposal: { id: 'no-such-proposal' },
  reject_proposal: { id: 'no-such-proposal' },
  revert_changes: { agent: 'proj', since: '2000-01-01T00:00:00Z' },
};

describe('attack: agents writing beyond their mode or where they cannot read', function () {
  this.timeout(60_000);
  let server: TestServer;
  const keys: Record<string, string> = {};

  const as = async (key: string, name: string, input: Record<string, unknown>) => {
    const { path, init } = restRequest(
      catalog.find((op) => op.name === name)!,
      input,
    );
    const res = await server.api(path, { ...init, key });
    return { status: res.status, body: await res.json() };
  };
  const head = async () => (await server.services.vaults.get('dana')).vault.head;

  beforeEach(async () => {
    server = await startTestServer();
    await server.key('dana', 'write', { name: 'laptop', plan: 'pro' });
    const uv = await server.services.vaults.get('dana');
    for (const [path, content] of Object.entries(SEED)) await uv.pages.write(testAuthor, { path, content });
    const agents: [string, Parameters<TestServer['services']['agents']['put']>[2]][] = [
      ['scout', { mode: 'propose', read: [''], write: ['projects/'] }],
      ['reader', { mode: 'read', read: [''] }],
      ['keeper', { mode: 'write', read: [''], write: [''] }],
      ['proj', { mode: 'write', read: ['projects/'], write: ['projects/'] }],
      // Writes everywhere by default, reads projects/ only.
      ['blind', { mode: 'write', read: ['projects/'] }],
    ];
    for (const [name, agent] of agents) {
      await server.services.agents.put('dana', name, agent);
      keys[name] = await server.key('dana', 'write', { agent: name, name: `${name}-key` });
    }
  });
  afterEach(() => server.stop());

  it('has a valid input for every operation beyond reading', () => {
    // git_push has no JSON route: test/server/git-http/push.test.ts refuses agents there.
    expect(catalog.filter((op) => op.scope !== 'read' && op.rest && !(op.name in WRITES)).map((op) => op.name)).to.deep.equal([]);
  });

  it('refuses a propose-mode agent every operation beyond reading but create_proposal and restore_page, rebuild_index included', async () => {
    const before = await head();
    for (const [name, input] of Object.entries(WRITES)) {
      // restore_page becomes a proposal for it: test/security/agent-history.test.ts.
      if (name === 'create_proposal' || name === 'restore_page') continue;
      const { status, body } = await as(keys.scout, name, input);
      expect([status, body.code], name).to.deep.equal([403, 'AGENT_FORBIDDEN']);
    }
    expect(await head()).to.equal(before);
    expect((await as(keys.scout, 'create_proposal', WRITES.create_proposal)).status).to.equal(201);
    const mcp = await mcpClient(server.url, { bearer: keys.scout });
    try {
      const result = await call(mcp, 'rebuild_index', {});
      expect(result.isError).to.equal(true);
      expect(result.structuredContent).to.include({ code: 'AGENT_FORBIDDEN' });
    } finally {
      await mcp.close();
    }
  });

  it('refuses rebuild_index to read-mode and folder-limited agents and lets a whole-vault writer rebuild', async () => {
    expect((await as(keys.reader, 'rebuild_index', {})).body.code).to.equal('AGENT_FORBIDDEN');
    expect((await as(keys.proj, 'rebuild_index', {})).body.code).to.equal('AGENT_FORBIDDEN');
    const mcp = await mcpClient(server.url, { bearer: keys.reader });
    try {
      expect((await call(mcp, 'rebuild_index', {})).structuredContent).to.include({ code: 'AGENT_FORBIDDEN' });
    } finally {
      await mcp.close();
    }
    const rebuilt = await as(keys.keeper, 'rebuild_index', {});
    expect([rebuilt.status, rebuilt.body.pages]).to.deep.equal([200, 6]);
  });

  it('refuses writes and proposals where the agent cannot read, the same for hidden and missing pages', async () => {
    const before = await head();
    const tries = (path: string) =>
      [
        ['append_to_page', { path, text: 'more' }],
        ['write_page', { path, content: 'x', base_hash: null }],
        ['delete_page', { path }],
        ['write_file', { path, content_base64: 'AA==' }],
        ['delete_file', { path }],
        ['set_task_status', { path, line: 6, status: 'done', base_hash: '0'.repeat(40) }],
        ['create_proposal', { title: 't', changes: [{ path, content: 'x' }] }],
      ] as const;
    for (const [[name, hidden], [, missing]] of tries('secret/treasure.md').map((t, i) => [t, tries('secret/nothing.md')[i]] as const)) {
      const a = await as(keys.blind, name, hidden);
      const b = await as(keys.blind, name, missing);
      expect([a.status, a.body.code], name).to.deep.equal([403, 'AGENT_FORBIDDEN']);
      expect(leaks(a.body.message.replace('secret/treasure.md', '')), name).to.deep.equal([]);
      expect(JSON.stringify(a).replaceAll('secret/treasure.md', 'secret/nothing.md'), name).to.equal(JSON.stringify(b));
    }
    expect(await head()).to.equal(before);
  });

  it('moves a page a hidden page links to without touching or revealing the hidden page', async () => {
    const uv = await server.services.vaults.get('dana');
    // secret/delta-new.md shares the name the first move gives; nothing shares the second's.
    for (const [path, content] of [
      ['projects/delta.md', 'd'],
      ['projects/epsilon.md', 'e'],
      ['projects/links.md', '[[delta]] [[epsilon]]'],
      ['secret/delta-new.md', 'zanzibarite'],
      ['secret/linker.md', 'zanzibarite [[delta]]'],
    ]) {
      await uv.pages.write(testAuthor, { path, content });
    }
    const hiddenBefore = (await uv.pages.read('secret/linker.md')).hash;
    for (const [from, to] of [
      ['projects/delta.md', 'projects/delta-new.md'],
      ['projects/epsilon.md', 'projects/epsilon-new.md'],
    ]) {
      const moved = await as(keys.proj, 'move_page', { from, to });
      expect([moved.status, moved.body.rewritten], from).to.deep.equal([200, ['projects/links.md']]);
      expect(leaks(moved.body), from).to.deep.equal([]);
    }
    // Both links take the same form: a bare [[delta-new]] would differ only because of the hidden namesake.
    expect((await as(keys.proj, 'read_page', { path: 'projects/links.md' })).body.content).to.equal(
      '[[projects/delta-new]] [[projects/epsilon-new]]',
    );
    expect((await uv.pages.read('secret/linker.md')).hash).to.equal(hiddenBefore);
  });
});
