import { expect } from 'chai';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { SseReader, type ReceivedEvent } from '../../../scripts/bench/sse-reader.js';
import { gitIn } from '../../helpers/temp-vault.js';
import { until } from '../../helpers/until.js';
import { git } from '../git-http/git-client.js';
import { PushSetup } from '../git-http/push-setup.js';

interface ChangeEvent {
  commit: string;
  actor: string;
  message: string;
  paths: { path: string; op: string; hash: string | null }[];
}

const FAST_WATCHER = { QUIRE_WATCH_SETTLE_MS: '50', QUIRE_WATCH_STABLE_MS: '0' };

describe('GET /vault/events (Server-Sent Events)', function () {
  this.timeout(60_000);
  const p = new PushSetup();
  const readers: SseReader[] = [];
  afterEach(async () => {
    for (const reader of readers.splice(0)) reader.close();
    await p.stop();
  });

  const open = async (query = '', headers: Record<string, string> = {}, key = p.key) => {
    const reader = await SseReader.open(`${p.server.url}/vault/events${query}`, { authorization: `Bearer ${key}`, ...headers });
    readers.push(reader);
    return reader;
  };
  const changeOf = (e: ReceivedEvent) => JSON.parse(e.data) as ChangeEvent;
  const change = async (reader: SseReader, commit: string) => changeOf(await reader.next((e) => e.event === 'change' && e.id === commit));
  const write = async (path: string, content: string, key = p.key): Promise<string> => {
    const res = await p.server.api('/vault/page', { method: 'POST', key, json: { path, content } });
    expect(res.ok, await res.clone().text()).to.equal(true);
    return (await res.json()).commit;
  };

  describe('sources', () => {
    beforeEach(() => p.start(FAST_WATCHER));

    it('opens with `ready` at head, then pushes one `change` per commit: API write, folder edit, git push, outside commit', async () => {
      const reader = await open();
      expect(reader.response.status).to.equal(200);
      expect(reader.response.headers.get('content-type')).to.equal('text/event-stream');
      const ready = await reader.next((e) => e.event === 'ready');
      expect(ready.id).to.equal(p.head());
      expect(JSON.parse(ready.data)).to.deep.equal({ cursor: p.head() });

      const api = await change(reader, await write('notes/api.md', 'over REST'));
      expect(api.paths).to.deep.equal([{ path: 'notes/api.md', op: 'add', hash: api.paths[0].hash, kind: 'page' }]);

      writeFileSync(join(p.vaultDir, 'notes/folder.md'), 'in the folder\n');
      const folder = changeOf(await reader.next((e) => e.event === 'change' && changeOf(e).actor === 'external'));
      expect(folder.commit).to.equal(p.head());
      expect(folder.paths.map((c) => c.path)).to.deep.equal(['notes/folder.md']);

      const pulled = await git(['pull', '-q'], p.client);
      expect(pulled.status, pulled.stderr).to.equal(0);
      await p.commitFile('notes/pushed.md', 'pushed\n');
      const pushed = await p.push('HEAD:main');
      expect(pushed.status, pushed.stderr).to.equal(0);
      expect((await change(reader, p.head())).actor).to.equal('Pat Pusher');

      writeFileSync(join(p.vaultDir, 'notes/outside.md'), 'committed with git\n');
      gitIn(p.vaultDir, 'add', 'notes/outside.md');
      gitIn(p.vaultDir, '-c', 'user.name=Olive Outside', '-c', 'user.email=o@example.com', 'commit', '-q', '-m', 'outside');
      expect((await change(reader, p.head())).paths.map((c) => c.path)).to.deep.equal(['notes/outside.md']);

      // Exactly one event per commit, in commit order.
      const commits = gitIn(p.vaultDir, 'rev-list', '--first-parent', '--reverse', `${ready.id}..main`).trim().split('\n');
      expect(reader.events.filter((e) => e.event === 'change').map((e) => e.id)).to.deep.equal(commits);
    });

    it('resumes after Last-Event-ID (or since) with what it missed, and refuses an unknown cursor as JSON', async () => {
      const first = await open();
      const seen = await write('notes/one.md', '1');
      await change(first, seen);
      first.close();
      const missed = [await write('notes/two.md', '2'), await write('notes/three.md', '3')];

      const resumed = await open(`?since=${p.head()}`, { 'last-event-id': seen });
      for (const commit of missed) await change(resumed, commit);
      expect((await resumed.next((e) => e.event === 'ready')).id).to.equal(seen);
      const bySince = await open(`?since=${seen}`);
      await change(bySince, missed[1]);

      const unknown = await p.server.api(`/vault/events?since=${'0'.repeat(40)}`, { key: p.key });
      expect(unknown.status).to.equal(410);
      expect((await unknown.json()).code).to.equal('CURSOR_UNKNOWN');
      const bad = await p.server.api('/vault/events', { key: p.key, headers: { 'last-event-id': 'nope' } });
      expect(bad.status).to.equal(400);
      expect((await bad.json()).code).to.equal('INVALID_REQUEST');
    });

    it('counts once against the sync bucket, not per event', async () => {
      const reader = await open();
      const remaining = Number(reader.response.headers.get('x-ratelimit-remaining'));
      expect(reader.response.headers.get('x-ratelimit-bucket')).to.equal('sync');
      for (let i = 0; i < 3; i++) await change(reader, await write(`notes/n${i}.md`, `${i}`));
      const after = await p.server.api(`/vault/changes?since=${p.head()}`, { key: p.key });
      expect(Number(after.headers.get('x-ratelimit-remaining'))).to.equal(remaining - 1);
    });

    it('answers HEAD with the headers only, holding nothing open', async () => {
      const head = await p.server.api('/vault/events', { method: 'HEAD', key: p.key });
      expect(head.status).to.equal(200);
      expect(head.headers.get('content-type')).to.match(/^text\/event-stream/);
      expect(p.server.services.live.count('alice')).to.equal(0);
    });

    it('ends the stream with `failed` when history is rewritten under it, and the reconnect gets 410', async () => {
      const reader = await open();
      const base = p.head();
      const gone = await write('notes/gone.md', 'soon rewritten');
      await change(reader, gone);
      gitIn(p.vaultDir, 'reset', '-q', '--hard', base);
      writeFileSync(join(p.vaultDir, 'notes/other.md'), 'another line of history\n');
      gitIn(p.vaultDir, 'add', 'notes/other.md');
      gitIn(p.vaultDir, '-c', 'user.name=R', '-c', 'user.email=r@x', 'commit', '-q', '-m', 'rewritten');
      const failed = await reader.next((e) => e.event === 'failed');
      expect(JSON.parse(failed.data).code).to.equal('CURSOR_UNKNOWN');
      await reader.ended;
      const again = await p.server.api('/vault/events', { key: p.key, headers: { 'last-event-id': gone } });
      expect(again.status).to.equal(410);
    });
  });

  describe('connections', () => {
    it('keeps the vault loaded and its folder watched, and leaves no listener behind once closed', async () => {
      // Shorter than the variables allow (1 s at least), set on the config: the stream outlives both idle times.
      await p.start({ ...FAST_WATCHER, QUIRE_VAULT_IDLE_MS: '300' }, (c) => ({
        ...c,
        watchTiming: { ...c.watchTiming, idleMs: 600 },
        live: { ...c.live, heartbeatMs: 300 },
      }));
      const reader = await open();
      await reader.next((e) => e.event === 'ready');
      await sleep(1000);
      expect(p.server.services.vaults.loadedWorkspace('alice'), 'evicted while streaming').to.not.equal(undefined);
      expect(p.server.services.vaults.commitListenerCount('alice')).to.equal(1);
      writeFileSync(join(p.vaultDir, 'notes/late.md'), 'still watched\n');
      await reader.next((e) => e.event === 'change' && e.data.includes('notes/late.md'));
      reader.close();
      await until('the stream to be let go', 5000, () => p.server.services.live.count('alice') === 0);
      expect(p.server.services.vaults.commitListenerCount('alice')).to.equal(0);
    });

    it('sends a heartbeat comment while quiet and ends cleanly at its lifetime', async () => {
      await p.start({}, (c) => ({ ...c, live: { ...c.live, heartbeatMs: 400, maxStreamMs: 1000 } }));
      const reader = await open();
      const started = Date.now();
      await reader.ended;
      expect(reader.failure).to.equal(undefined);
      expect(Date.now() - started).to.be.within(800, 4800);
      expect(reader.comments).to.be.at.least(2);
      expect(p.server.services.live.count('alice')).to.equal(0);
    });

    it("caps a user's live connections (streams and long-polls together), closing the oldest", async () => {
      await p.start({ QUIRE_LIVE_CONNECTIONS_PER_USER: '2' });
      const bob = await p.server.key('bob', 'read');
      const bobs = await open('', {}, bob);
      const first = await open();
      const second = await open();
      for (const s of [bobs, first, second]) await s.next((e) => e.event === 'ready');
      const started = Date.now();
      const poll = p.server.api(`/vault/changes?since=${p.head()}&wait=30`, { key: p.key });
      await first.ended;
      expect(first.failure).to.equal(undefined);
      const third = await open();
      await second.ended;
      expect(p.server.services.live.count('alice')).to.equal(2);

      // The long-poll is now the oldest: a new stream answers it, empty.
      const fourth = await open();
      const answer = await poll;
      expect(answer.status).to.equal(200);
      expect((await answer.json()).changes).to.deep.equal([]);
      expect(Date.now() - started).to.be.below(10_000);
      const commit = await write('notes/x.md', 'x');
      for (const s of [third, fourth]) await change(s, commit);
      expect(p.server.services.live.count('alice')).to.equal(2);
      expect(p.server.services.live.count('bob')).to.equal(1);
      expect(bobs.events.filter((e) => e.event === 'change')).to.deep.equal([]);
    });

    it('ends every stream cleanly when the server shuts down', async () => {
      await p.start({});
      const streams = [await open(), await open()];
      for (const s of streams) await s.next((e) => e.event === 'ready');
      const started = Date.now();
      await p.server.close();
      for (const s of streams) {
        await s.ended;
        expect(s.failure).to.equal(undefined);
      }
      expect(Date.now() - started).to.be.below(5000);
    });
  });
});
