import { execFileSync } from 'node:child_process';
import { expect } from 'chai';
import { vaultDir } from '../../../server/vaults/user-vault.js';
import { startTestServer, type TestServer } from '../../helpers/test-server.js';
import { until } from '../../helpers/until.js';

const USERS = ['ann', 'bob', 'cid'];
const WRITES = 12;

interface Feed {
  cursor: string;
  has_more: boolean;
  changes: { commit: string }[];
}

/** A budget of one byte: every vault is past it, so each release closes all but the latest used. */
async function tinyBudgetServer(): Promise<TestServer> {
  return startTestServer({}, (config) => ({ ...config, memoryBudgetBytes: 1, vaultIdleMs: 0 }));
}

describe('vault eviction under a memory budget', function () {
  this.timeout(60_000);
  let server: TestServer;
  afterEach(() => server?.stop());

  it('loses no write to vaults closed and reopened mid-traffic, and keeps each change feed continuous', async () => {
    server = await tinyBudgetServer();
    const keys = Object.fromEntries(await Promise.all(USERS.map(async (u) => [u, await server.key(u, 'write')] as const)));
    const json = async (path: string, key: string) => (await server.api(path, { key })).json();
    const start = Object.fromEntries(await Promise.all(USERS.map(async (u) => [u, (await json('/vault/health', keys[u])).git.head])));
    const acked: Record<string, string[]> = Object.fromEntries(USERS.map((u) => [u, []]));
    const seen: Record<string, string[]> = Object.fromEntries(USERS.map((u) => [u, []]));
    const cursors = { ...start };
    const poll = async (user: string): Promise<boolean> => {
      const res = await server.api(`/vault/changes?since=${cursors[user]}&limit=1000`, { key: keys[user] });
      expect(res.status, await res.clone().text()).to.equal(200);
      const feed = (await res.json()) as Feed;
      seen[user].push(...feed.changes.map((c) => c.commit));
      cursors[user] = feed.cursor;
      return feed.has_more;
    };
    let writing = true;
    const writers = USERS.map(async (user) => {
      for (let i = 0; i < WRITES; i++) {
        const res = await server.api('/vault/page', {
          key: keys[user],
          method: 'POST',
          json: { path: `notes/${i}.md`, content: `# ${user} ${i}\n` },
        });
        expect(res.status, await res.clone().text()).to.equal(201);
        acked[user].push((await res.json()).commit);
      }
    });
    const readers = USERS.map(async (user) => {
      while (writing) await poll(user);
    });
    await Promise.all(writers);
    writing = false;
    await Promise.all(readers);
    for (const user of USERS) while (await poll(user));

    expect(server.services.vaults.memory().evictions, 'vaults were evicted meanwhile').to.be.greaterThan(USERS.length);
    for (const user of USERS) {
      const log = execFileSync('git', ['rev-list', '--reverse', '--first-parent', `${start[user]}..main`], {
        cwd: vaultDir(server.dataDir, user),
      });
      const history = log.toString().trim().split('\n');
      expect(history, `${user}: every acknowledged write is a commit on main`).to.include.members(acked[user]);
      expect(seen[user], `${user}: the feed names each commit once, in order`).to.deep.equal(history);
      for (let i = 0; i < WRITES; i++) expect((await json(`/vault/page/notes/${i}.md`, keys[user])).content).to.equal(`# ${user} ${i}\n`);
    }
  });

  it('still serves with a budget smaller than one vault, holding one vault at a time', async () => {
    server = await tinyBudgetServer();
    const keys = await Promise.all(USERS.map((u) => server.key(u, 'write')));
    for (let round = 0; round < 2; round++) {
      for (const [i, key] of keys.entries()) {
        const res = await server.api('/vault/page', { key, method: 'POST', json: { path: `r${round}.md`, content: `round ${round}\n` } });
        expect(res.status).to.equal(201);
        expect(server.services.vaults.memory().loaded, 'vaults loaded after a request').to.equal(1);
        expect(server.services.vaults.loadedWorkspace(USERS[i]), 'the one loaded is the one just used').not.to.equal(undefined);
      }
    }
    for (const key of keys) expect((await (await server.api('/vault/page/r0.md', { key })).json()).content).to.equal('round 0\n');
    // Logged once closed: its queue drained and its index saved.
    const evicted = await until('an eviction logged', 5000, () => server.logs.find((line) => line.msg === 'vault evicted'));
    expect(evicted).to.include({ reason: 'budget', budget: 1 }).and.to.have.property('rss').that.is.a('number');
  });
});
