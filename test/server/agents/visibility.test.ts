import { expect } from 'chai';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { catalog } from '../../../server/ops/catalog.js';
import { startTestServer, type TestServer } from '../../helpers/test-server.js';
import { testAuthor } from '../../helpers/temp-vault.js';
import { call, mcpClient } from '../mcp/mcp-client.js';
import { restRequest } from '../../helpers/rest-request.js';

/** Everything outside projects/ is hidden from the agent; these strings exist only there. */
const SEED: Record<string, string> = {
  'GUIDE.md': '# Guide\n\nThe owner writes zanzibar conventions here.\n',
  'private/hidden-plan.md': '---\ntags: [secret-tag]\n---\n# Hidden plan\n\nThe zanzibar key opens it. Related: [[alpha]].\n',
  'private/diary.md':
    '# Diary\n\nzanzibar again; see [[alpha]], [[hidden-plan]] and [[nowhere]]. #secret-tag\n- [ ] zanzibar errand 📅 2026-12-01 #secret-tag\n',
  'projects/alpha.md': '---\ntags: [shared]\n---\n# Alpha\n\nThe alpha project, with [[beta]]. See [[hidden-plan]] for the key.\n',
  'projects/beta.md': '# Beta\n\nBeta builds on [[alpha]]. The key matters.\n',
  'projects/w-delete.md': 'to delete\n',
  'projects/w-append.md': '# Append\n',
  'projects/w-patch.md': 'old text\n',
  'projects/w-move.md': '# Move me\n',
  'projects/w-task.md': '- [ ] tick me\n',
};
/** Hidden names and words; one the request itself carries (a probed path) may be echoed back. */
const LEAKS = ['private', 'zanzibar', 'Hidden plan', 'hidden-plan.md', 'secret-tag', 'Diary', 'diary.md', 'GUIDE'];

interface Fixture {
  hashOf: (path: string) => Promise<string>;
  /** A proposal the owner made that touches private/. */
  privateProposal: string;
  firstCommit: string;
  /** A commit that changed only private/. */
  privateCommit: string;
}
type Inputs = (f: Fixture) => Promise<Record<string, unknown>[]> | Record<string, unknown>[];

/**
 * Inputs per operation that tempt it to reveal hidden pages. An operation missing here
 * fails the suite: whoever adds an operation states how it keeps hidden pages hidden.
 */
const CASES: Record<string, Inputs> = {
  list_pages: () => [{}, { prefix: 'private/' }],
  read_page: () => [{ path: 'private/hidden-plan.md' }, { path: 'GUIDE.md' }],
  write_page: () => [
    { path: 'projects/w-write.md', content: 'x' },
    { path: 'private/hidden-plan.md', content: 'x' },
  ],
  delete_page: () => [{ path: 'projects/w-delete.md' }, { path: 'private/diary.md' }],
  capture: () => [{ title: 'zz', content: 'c' }],
  list_files: () => [{}, { prefix: 'private/' }, { limit: 1 }],
  read_file: () => [{ path: 'private/hidden-plan.md' }, { path: 'GUIDE.md' }, { path: 'projects/alpha.md' }],
  write_file: () => [
    { path: 'projects/w-file.png', content_base64: 'AA==' },
    { path: 'private/hidden-plan.md', content_base64: 'AA==' },
  ],
  delete_file: () => [{ path: 'projects/w-file.png' }, { path: 'private/diary.md' }],
  read_pages: () => [{ paths: ['projects/alpha.md', 'private/hidden-plan.md', 'private/diary.md'] }],
  page_outline: () => [{ path: 'private/hidden-plan.md' }],
  append_to_page: () => [
    { path: 'projects/w-append.md', text: 'more' },
    { path: 'private/diary.md', text: 'more' },
  ],
  patch_page: async (f) => [{ path: 'projects/w-patch.md', find: 'old', replace: 'new', base_hash: await f.hashOf('projects/w-patch.md') }],
  move_page: () => [
    { from: 'projects/w-move.md', to: 'projects/w-moved.md' },
    { from: 'private/diary.md', to: 'projects/diary.md' },
  ],
  search: () => [{ q: 'opens' }, { q: 'key' }, { q: 'alpha', prefix: 'private/' }, { q: 'plan', tag: 'secret-tag' }],
  similar_pages: () => [{ path: 'projects/alpha.md' }, { text: 'the key opens it again alpha plan' }, { path: 'private/diary.md' }],
  ask: () => [{ question: 'What does the key open?' }, { question: 'What is the alpha project?' }],
  list_tags: () => [{}],
  query_pages: () => [
    {},
    { from: 'private/' },
    { from: '#secret-tag' },
    { from: '[[hidden-plan]]' },
    { fields: ['links', 'backlinks_count'], sort: [{ field: 'backlinks_count', dir: 'desc' }] },
  ],
  list_tasks: () => [{}, { status: 'all' }, { prefix: 'private/' }, { tag: 'secret-tag' }, { due_before: '2027-01-01' }],
  set_task_status: async (f) => [
    { path: 'projects/w-task.md', line: 1, status: 'done', base_hash: await f.hashOf('projects/w-task.md') },
    { path: 'private/diary.md', line: 4, status: 'done', base_hash: await f.hashOf('private/diary.md') },
  ],
  graph: () => [{}, { path: 'projects/alpha.md', depth: 3 }, { path: 'private/diary.md' }],
  backlinks: () => [{ path: 'projects/alpha.md' }, { path: 'private/hidden-plan.md' }],
  lint: () => [{}],
  vault_stats: () => [{}],
  vault_health: () => [{}],
  rebuild_index: () => [{}],
  recent_changes: (f) => [{}, { since: f.firstCommit }],
  revert_changes: (f) => [
    { agent: 'proj', since: '2000-01-01T00:00:00Z', dry_run: true },
    { commit: f.privateCommit, dry_run: true },
    { commit: f.privateCommit, confirm: true },
  ],
  page_history: () => [{}, { path: 'projects/alpha.md' }, { path: 'private/diary.md' }, { agent: 'proj', key: 'laptop' }],
  diff_page: (f) => [
    { path: 'projects/alpha.md', from: f.firstCommit },
    { path: 'private/diary.md', from: f.firstCommit },
  ],
  restore_page: (f) => [
    { path: 'projects/alpha.md', at: f.firstCommit },
    { path: 'private/diary.md', at: '2999-01-01' },
  ],
  list_deleted: () => [{}, { prefix: 'private/' }],
  ack_changes: (f) => [{ cursor: f.firstCommit }],
  // An endless stream: test/security/live-changes-agents.test.ts reads it as an agent.
  change_events: () => [],
  list_agents: () => [{}],
  put_agent: () => [{ name: 'proj', mode: 'write' }],
  delete_agent: () => [{ name: 'proj' }],
  create_proposal: () => [
    { title: 't', changes: [{ path: 'projects/p.md', content: 'x' }] },
    { title: 't', changes: [{ path: 'private/p.md', content: 'x' }] },
  ],
  list_proposals: () => [{}, { status: 'pending' }],
  get_proposal: (f) => [{ id: f.privateProposal }],
  approve_proposal: (f) => [{ id: f.privateProposal }],
  reject_proposal: (f) => [{ id: f.privateProposal }],
  export: () => [{}],
  // No REST route or tool: clone has its own agent test (test/server/git-http/clone.test.ts).
  git_clone: () => [],
  git_push: () => [], // owner only: test/server/git-http/push.test.ts
  whoami: () => [{}],
  guide: () => [{}],
  context_pack: () => [{ topic: 'the key opens alpha again', max_tokens: 4000, paths: ['private/hidden-plan.md', 'projects/alpha.md'] }],
};

function leaksIn(text: string, input: Record<string, unknown>): string[] {
  const sent = JSON.stringify(input);
  return LEAKS.filter((word) => text.includes(word) && !sent.includes(word));
}

describe('an agent restricted to projects/ never sees anything else, through any operation', function () {
  this.timeout(60_000);
  let server: TestServer;
  let agentKey: string;
  let mcp: Client;
  let fixture: Fixture;

  before(async () => {
    server = await startTestServer();
    const owner = await server.key('dana', 'write', { name: 'laptop', plan: 'pro' });
    const uv = await server.services.vaults.get('dana');
    const firstCommit = uv.vault.head;
    for (const [path, content] of Object.entries(SEED)) await uv.pages.write(testAuthor, { path, content });
    await server.services.agents.put('dana', 'proj', { mode: 'write', read: ['projects/'], write: ['projects/'] });
    agentKey = await server.key('dana', 'write', { agent: 'proj', name: 'proj-key', device: true });
    mcp = await mcpClient(server.url, { bearer: agentKey });
    const made = await server.api('/vault/proposals', {
      method: 'POST',
      key: owner,
      json: { title: 'secret', changes: [{ path: 'private/new.md', content: 'x' }] },
    });
    const diary = 'private/diary.md';
    const privateCommit = (await uv.pages.write(testAuthor, { path: diary, content: `${SEED[diary]}zanzibar, later\n` })).commit!;
    fixture = { hashOf: async (p) => (await uv.pages.read(p)).hash, privateProposal: (await made.json()).id, firstCommit, privateCommit };
  });
  after(async () => {
    await mcp.close();
    await server.stop();
  });

  it('has a case for every operation in the catalog', () => {
    expect(catalog.map((op) => op.name).filter((name) => !CASES[name])).to.deep.equal([]);
  });

  for (const op of catalog) {
    it(`${op.name}: nothing outside projects/ on ${[op.rest && 'REST', op.mcp && 'MCP'].filter(Boolean).join(' or ')}`, async () => {
      const inputs = await CASES[op.name](fixture);
      for (const input of inputs) {
        if (op.rest) {
          const { path, init } = restRequest(op, input);
          const res = await server.api(path, { ...init, key: agentKey });
          const text = await res.text();
          expect(leaksIn(text, input), `REST ${op.name} ${JSON.stringify(input)} → ${res.status} ${text.slice(0, 300)}`).to.deep.equal([]);
          expect(res.status, `REST ${op.name}: ${text.slice(0, 300)}`).to.not.equal(500);
        }
        if (op.mcp) {
          const result = await call(mcp, op.name, input);
          const text = JSON.stringify(result);
          expect(leaksIn(text, input), `MCP ${op.name} ${JSON.stringify(input)} → ${text.slice(0, 300)}`).to.deep.equal([]);
          expect((result.structuredContent as { code?: string } | undefined)?.code).to.not.equal('INTERNAL');
        }
      }
    });
  }

  it('answers a hidden page exactly as a missing one', async () => {
    const hidden = await server.api('/vault/page/private/hidden-plan.md', { key: agentKey });
    const missing = await server.api('/vault/page/private/no-such-page.md', { key: agentKey });
    expect(hidden.status).to.equal(404);
    expect((await hidden.json()).code).to.equal((await missing.json()).code);
  });
});
