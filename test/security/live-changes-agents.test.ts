import { expect } from 'chai';
import { writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { SseReader } from '../../scripts/bench/sse-reader.js';
import { gitIn } from '../helpers/temp-vault.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

/** Live changes (events, long-poll) carry only what an agent may read; a commit it cannot see sends nothing. */
describe('attack: an agent limited to projects/ listening to live changes for secret/', function () {
  this.timeout(60_000);
  let server: TestServer;
  let owner: string;
  let agent: string;
  let stream: SseReader;

  beforeEach(async () => {
    server = await startTestServer();
    owner = await server.key('dana', 'write', { name: 'laptop' });
    await server.services.agents.put('dana', 'proj', { mode: 'write', read: ['projects/'], write: ['projects/'] });
    agent = await server.key('dana', 'read', { agent: 'proj', name: 'proj-key' });
    stream = await SseReader.open(`${server.url}/vault/events`, { authorization: `Bearer ${agent}` });
    await stream.next((e) => e.event === 'ready');
  });
  afterEach(async () => {
    stream.close();
    await server.stop();
  });

  const write = async (path: string) => {
    const res = await server.api('/vault/page', { method: 'POST', key: owner, json: { path, content: `zanzibarite ${path}` } });
    expect(res.ok).to.equal(true);
    return (await res.json()).commit as string;
  };
  const everything = () => stream.events.map((e) => `${e.id} ${e.event} ${e.data}`).join('\n');

  it('sends no event for a hidden commit and only the visible paths of a mixed one, with the message hidden', async () => {
    const vault = await server.services.vaults.get('dana');
    const since = vault.head;
    const poll = server.api(`/vault/changes?since=${since}&wait=20`, { key: agent });
    await write('secret/x.md');
    await sleep(300);
    expect(stream.events.filter((e) => e.event === 'change')).to.deep.equal([]);
    expect(server.services.live.count('dana'), 'the long-poll still waits').to.equal(2);

    mkdirSync(join(vault.dir, 'projects'), { recursive: true });
    writeFileSync(join(vault.dir, 'projects/b.md'), 'visible\n');
    writeFileSync(join(vault.dir, 'secret/y.md'), 'hidden\n');
    gitIn(vault.dir, 'add', '-A');
    gitIn(vault.dir, '-c', 'user.name=Dana', '-c', 'user.email=d@x', 'commit', '-q', '-m', 'secret/y.md and projects/b.md');
    const mixed = JSON.parse((await stream.next((e) => e.event === 'change')).data);
    expect(mixed.paths.map((c: { path: string }) => c.path)).to.deep.equal(['projects/b.md']);
    expect(mixed.message).to.equal('Changes outside your folders');

    const answer = await (await poll).json();
    expect(answer.changes.map((c: { paths: { path: string }[] }) => c.paths.map((p) => p.path))).to.deep.equal([['projects/b.md']]);
    expect(answer.cursor).to.equal(vault.head);
    expect(JSON.stringify(answer)).to.not.include('secret');
    expect(everything()).to.not.include('secret');
  });

  it("follows the agent's folders as they change while the stream is open", async () => {
    await write('projects/a.md');
    await stream.next((e) => e.event === 'change');
    await server.services.agents.put('dana', 'proj', { mode: 'write', read: ['other/'], write: ['other/'] });
    await write('projects/after.md');
    const other = await write('other/c.md');
    const seen = await stream.next((e) => e.event === 'change' && e.id === other);
    expect(JSON.parse(seen.data).paths.map((c: { path: string }) => c.path)).to.deep.equal(['other/c.md']);
    expect(everything()).to.not.include('projects/after.md');
  });

  it("ends an agent's stream once the agent is deleted", async () => {
    await server.services.agents.remove('dana', 'proj');
    await write('projects/a.md');
    const failed = await stream.next((e) => e.event === 'failed');
    expect(JSON.parse(failed.data).code).to.equal('AGENT_FORBIDDEN');
    await stream.ended;
    expect(everything()).to.not.include('projects/a.md');
  });
});
