import { expect } from 'chai';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { SseReader } from '../../../scripts/bench/sse-reader.js';
import { gitIn } from '../../helpers/temp-vault.js';
import { until } from '../../helpers/until.js';
import { PushSetup } from '../git-http/push-setup.js';

interface Feed {
  head: string;
  cursor: string;
  has_more: boolean;
  changes: { commit: string; actor: string; paths: { path: string; op: string }[] }[];
}

describe('GET /vault/changes?wait= (long-poll)', function () {
  this.timeout(60_000);
  const p = new PushSetup();
  beforeEach(() => p.start({ QUIRE_WATCH_SETTLE_MS: '50', QUIRE_WATCH_STABLE_MS: '0' }));
  afterEach(() => p.stop());

  /** A long-poll from the current head, and when it was asked. */
  const poll = (query: string) => {
    const started = Date.now();
    const answer = p.server.api(`/vault/changes?since=${p.head()}&${query}`, { key: p.key }).then(async (res) => {
      expect(res.status, await res.clone().text()).to.equal(200);
      return { feed: (await res.json()) as Feed, ms: Date.now() - started, rate: res.headers.get('x-ratelimit-remaining') };
    });
    return answer;
  };
  /** Lets the long-poll reach its wait before the change is made. */
  const waiting = async () => {
    await sleep(150);
    expect(p.server.services.live.count('alice')).to.equal(1);
  };

  it('answers as soon as an API write lands, with that write', async () => {
    const answer = poll('wait=30');
    await waiting();
    const written = await p.server.api('/vault/page', { method: 'POST', key: p.key, json: { path: 'notes/new.md', content: 'new' } });
    const { commit } = await written.json();
    const { feed, ms } = await answer;
    expect(feed.changes.map((c) => c.commit)).to.deep.equal([commit]);
    expect(feed.changes[0].paths).to.deep.include({ path: 'notes/new.md', op: 'add', hash: feed.changes[0].paths[0].hash, kind: 'page' });
    expect(ms).to.be.below(10_000);
    expect(p.server.services.live.count('alice')).to.equal(0);
    expect(p.server.services.vaults.commitListenerCount('alice')).to.equal(0);
  });

  it('answers when an edit made in the folder is committed by the watcher', async () => {
    const answer = poll('wait=30');
    await waiting();
    writeFileSync(join(p.vaultDir, 'notes/folder.md'), 'edited in the folder\n');
    const { feed } = await answer;
    expect(feed.changes).to.have.length(1);
    expect(feed.changes[0].actor).to.equal('external');
    expect(feed.changes[0].paths.map((c) => c.path)).to.deep.equal(['notes/folder.md']);
  });

  it('answers when a git push lands', async () => {
    const answer = poll('wait=30');
    await waiting();
    await p.commitFile('notes/pushed.md', 'pushed\n');
    const pushed = await p.push('HEAD:main');
    expect(pushed.status, pushed.stderr).to.equal(0);
    const { feed } = await answer;
    expect(feed.changes.map((c) => [c.commit, c.actor])).to.deep.equal([[p.head(), 'Pat Pusher']]);
  });

  it('answers when git commits in the vault folder (an outside commit the vault follows)', async () => {
    const answer = poll('wait=30');
    await waiting();
    writeFileSync(join(p.vaultDir, 'notes/outside.md'), 'committed with git\n');
    gitIn(p.vaultDir, 'add', 'notes/outside.md');
    gitIn(p.vaultDir, '-c', 'user.name=Olive Outside', '-c', 'user.email=o@example.com', 'commit', '-q', '-m', 'outside');
    const { feed } = await answer;
    expect(feed.changes.map((c) => c.actor)).to.deep.equal(['Olive Outside']);
    expect(feed.changes[0].paths.map((c) => c.path)).to.deep.equal(['notes/outside.md']);
  });

  it('answers at once when changes already exist, and after `wait` with no changes and the same cursor', async () => {
    const since = p.head();
    await p.server.api('/vault/page', { method: 'POST', key: p.key, json: { path: 'notes/b.md', content: 'b' } });
    const started = Date.now();
    const ready: Feed = await (await p.server.api(`/vault/changes?since=${since}&wait=30`, { key: p.key })).json();
    expect(ready.changes).to.have.length(1);
    expect(Date.now() - started).to.be.below(5000);

    const { feed, ms } = await poll('wait=1');
    expect(feed).to.deep.include({ changes: [], has_more: false, cursor: p.head() });
    expect(ms).to.be.at.least(1000);
  });

  it('counts once against the sync bucket however long it waits, and refuses a wait over 60 s', async () => {
    const before = Number((await p.server.api(`/vault/changes?since=${p.head()}`, { key: p.key })).headers.get('x-ratelimit-remaining'));
    const { rate } = await poll('wait=1');
    expect(Number(rate)).to.equal(before - 1);
    const refused = await p.server.api(`/vault/changes?since=${p.head()}&wait=61`, { key: p.key });
    expect(refused.status).to.equal(400);
    expect((await refused.json()).code).to.equal('INVALID_REQUEST');
  });

  it('stops waiting as soon as its client disconnects: its lease, listener and place under the cap are freed', async () => {
    await p.stop();
    await p.start({ QUIRE_LIVE_CONNECTIONS_PER_USER: '2', QUIRE_VAULT_IDLE_MS: '300' });
    const abandon = async () => {
      const client = new AbortController();
      const left = p.server.api(`/vault/changes?since=${p.head()}&wait=30`, { key: p.key, signal: client.signal }).catch(() => 'left');
      await until('the long-poll to wait', 5000, () => p.server.services.live.count('alice') > 0);
      client.abort();
      expect(await left).to.equal('left');
    };
    await abandon();
    await until('the long-poll to be let go', 2000, () => p.server.services.live.count('alice') === 0);
    expect(p.server.services.vaults.commitListenerCount('alice')).to.equal(0);
    await until('the idle vault to be closed (its lease released)', 5000, () => !p.server.services.vaults.loadedWorkspace('alice'));

    // A stream, an abandoned long-poll, a second stream: at the cap of two, nobody is closed.
    const first = await SseReader.open(`${p.server.url}/vault/events`, { authorization: `Bearer ${p.key}` });
    await first.next((e) => e.event === 'ready');
    await abandon();
    await until('the long-poll to be let go', 2000, () => p.server.services.live.count('alice') === 1);
    const second = await SseReader.open(`${p.server.url}/vault/events`, { authorization: `Bearer ${p.key}` });
    try {
      await second.next((e) => e.event === 'ready');
      const written = await p.server.api('/vault/page', { method: 'POST', key: p.key, json: { path: 'notes/both.md', content: 'both' } });
      const { commit } = await written.json();
      for (const stream of [first, second]) await stream.next((e) => e.event === 'change' && e.id === commit);
      expect(p.server.services.live.count('alice')).to.equal(2);
    } finally {
      first.close();
      second.close();
    }
  });

  it('answers a waiting long-poll with no changes when the server shuts down', async () => {
    const answer = poll('wait=30');
    await waiting();
    const started = Date.now();
    await p.server.close();
    const { feed } = await answer;
    expect(feed.changes).to.deep.equal([]);
    expect(Date.now() - started).to.be.below(5000);
  });
});
