import { expect } from 'chai';
import { vaultDir } from '../../server/vaults/user-vault.js';
import { gitIn } from '../helpers/temp-vault.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

/**
 * An agent reverting a session may undo only what it may write, and must learn nothing of
 * what it cannot read: not a path, not a commit, not a message.
 */
describe('attack: an agent using revert beyond its folders', function () {
  this.timeout(30_000);
  let server: TestServer;
  let owner: string;
  const keys: Record<string, string> = {};
  const since = new Date(Date.now() - 3600_000).toISOString();

  const post = async (route: string, json: unknown, key = owner) => {
    const res = await server.api(route, { method: 'POST', key, json });
    return { status: res.status, body: await res.json() };
  };
  const git = (...args: string[]) => gitIn(vaultDir(server.dataDir, 'dana'), ...args).trim();
  const content = async (path: string) => (await (await server.api(`/vault/page/${path}`, { key: owner })).json()).content;

  beforeEach(async () => {
    server = await startTestServer();
    owner = await server.key('dana', 'write', { name: 'laptop' });
    const helper = await server.key('dana', 'write', { name: 'helper' });
    for (const path of ['projects/p.md', 'shared/s.md', 'secret/zanzibarite.md']) await post('/vault/page', { path, content: 'before\n' });
    await server.services.agents.put('dana', 'proj', { mode: 'write', read: ['projects/', 'shared/'], write: ['projects/'] });
    await server.services.agents.put('dana', 'scout', { mode: 'propose', read: [''], write: [''] });
    keys.proj = await server.key('dana', 'write', { agent: 'proj', name: 'proj-key' });
    keys.scout = await server.key('dana', 'write', { agent: 'scout', name: 'scout-key' });
    // The helper key's session touches all three folders, the hidden one alone in one commit.
    for (const path of ['projects/p.md', 'shared/s.md', 'secret/zanzibarite.md'])
      await post('/vault/page', { path, content: 'after\n' }, helper);
  });
  afterEach(() => server.stop());

  it('undoes only pages it may write, skips readable others, and leaves hidden ones out unnamed', async () => {
    const { status, body } = await post('/vault/revert', { key: 'helper', since }, keys.proj);
    expect(status).to.equal(200);
    expect(JSON.stringify(body)).to.not.match(/secret|zanzibarite/);
    expect(body.commits).to.have.length(2);
    expect(body.reverted.map((r: { path: string }) => r.path)).to.deep.equal(['projects/p.md']);
    expect(body.skipped.map((s: { path: string; reason: string }) => [s.path, s.reason])).to.deep.equal([
      ['shared/s.md', 'outside_write_paths'],
    ]);
    expect(await content('projects/p.md')).to.equal('before\n');
    expect(await content('shared/s.md')).to.equal('after\n');
    expect(await content('secret/zanzibarite.md')).to.equal('after\n');
  });

  it('undoes a commit that also moved a hidden page without naming it in its own commit message', async () => {
    const moved = await post('/vault/move', { from: 'secret/zanzibarite.md', to: 'projects/found.md' });
    const { body } = await post('/vault/revert', { commit: moved.body.commit }, keys.proj);
    expect(JSON.stringify(body)).to.not.match(/secret|zanzibarite/);
    expect(body.deleted).to.deep.equal([{ path: 'projects/found.md' }]);
    expect(git('log', '-1', '--format=%B')).to.not.match(/secret|zanzibarite/);
    // The hidden half of the move is not undone: the agent may not write there.
    expect((await server.api('/vault/page/secret/zanzibarite.md', { key: owner })).status).to.equal(404);
  });

  it('refuses a propose-mode agent, writing nothing', async () => {
    const head = git('rev-parse', 'main');
    const { status, body } = await post('/vault/revert', { key: 'helper', since }, keys.scout);
    expect([status, body.code]).to.deep.equal([403, 'AGENT_FORBIDDEN']);
    expect(git('rev-parse', 'main')).to.equal(head);
  });
});
