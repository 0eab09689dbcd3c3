import { expect } from 'chai';
import { SseReader } from '../../scripts/bench/sse-reader.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';
import { until } from '../helpers/until.js';
import { quireIn } from '../server/git-http/server-child.js';
import { mcpClient } from '../server/mcp/mcp-client.js';
import { connectApp, userWithPassword } from '../server/oauth/flow.js';

/**
 * A key revoked while its sync client listens: the open event stream and the waiting
 * long-polls end at once (not when the stream's 10-minute lifetime passes), whoever revoked it.
 */
describe('attack: a revoked key keeps listening to live changes', function () {
  this.timeout(60_000);
  let server: TestServer;
  let key: string;
  let other: string;
  const readers: SseReader[] = [];

  beforeEach(async () => {
    server = await startTestServer();
    key = await server.key('erin', 'read', { name: 'laptop', device: true });
    other = await server.key('erin', 'write', { name: 'phone' });
  });
  afterEach(async () => {
    for (const reader of readers.splice(0)) reader.close();
    await server.stop();
  });

  const listen = async (secret: string) => {
    const reader = await SseReader.open(`${server.url}/vault/events`, { authorization: `Bearer ${secret}` });
    readers.push(reader);
    await reader.next((e) => e.event === 'ready');
    return reader;
  };
  const head = async () => (await server.services.vaults.get('erin')).head;
  const poll = async (secret: string) => server.api(`/vault/changes?since=${await head()}&wait=30`, { key: secret });
  const waiting = (n: number) => until(`${n} live connections`, 5000, () => server.services.live.count('erin') === n);

  /** The stream says why it ends, then ends; the long-poll fails as an unknown key does. */
  const expectCutOff = async (stream: SseReader, polled: Promise<Response>, started: number) => {
    const failed = await stream.next((e) => e.event === 'failed');
    expect(JSON.parse(failed.data).code).to.equal('UNAUTHENTICATED');
    await stream.ended;
    const answer = await polled;
    expect(answer.status).to.equal(401);
    expect((await answer.json()).code).to.equal('UNAUTHENTICATED');
    expect(Date.now() - started, 'ended at once, not at the end of its wait').to.be.below(5000);
    expect((await server.api('/vault/events', { key })).status).to.equal(401);
  };

  it('ends the stream and the long-poll of a key revoked in the account (the account area revokes through the account store)', async () => {
    const stream = await listen(key);
    const polled = poll(key);
    const untouched = await listen(other);
    await waiting(3);
    const started = Date.now();
    await server.services.accounts.revokeKey('erin', 'laptop');
    await expectCutOff(stream, polled, started);

    // The other key of the same user keeps its stream.
    const written = await server.api('/vault/page', { method: 'POST', key: other, json: { path: 'after.md', content: 'after' } });
    const { commit } = await written.json();
    await untouched.next((e) => e.event === 'change' && e.id === commit);
    expect(untouched.events.map((e) => e.event)).to.not.include('failed');
    expect(stream.events.map((e) => e.id)).to.not.include(commit);
    expect(server.services.live.count('erin')).to.equal(1);
  });

  it('ends them when the key is revoked by another process: `quire key revoke`', async () => {
    const stream = await listen(key);
    const polled = poll(key);
    await waiting(2);
    const started = Date.now();
    expect(quireIn(server.dataDir, 'key', 'revoke', 'erin', 'laptop')).to.include('revoked');
    await expectCutOff(stream, polled, started);
  });

  it('ends an MCP long-poll (recent_changes with wait) of a revoked key', async () => {
    const client = await mcpClient(server.url, { bearer: key });
    try {
      const since = await head();
      const called = client.callTool({ name: 'recent_changes', arguments: { since, wait: 30 } });
      await waiting(1);
      const started = Date.now();
      await server.services.accounts.revokeKey('erin', 'laptop');
      const result = await called;
      expect(result.isError).to.equal(true);
      expect((result.structuredContent as { code: string }).code).to.equal('UNAUTHENTICATED');
      expect(Date.now() - started).to.be.below(5000);
      expect(server.services.live.count('erin')).to.equal(0);
    } finally {
      await client.close();
    }
  });

  it('ends the MCP long-poll of an app the user disconnects (its grant revoked with its refresh token)', async () => {
    await userWithPassword(server);
    const app = await connectApp(server);
    const client = await mcpClient(server.url, { bearer: app.access_token });
    try {
      const since = (await server.services.vaults.get('ann')).head;
      const called = client.callTool({ name: 'recent_changes', arguments: { since, wait: 30 } });
      await until('the long-poll to wait', 5000, () => server.services.live.count('ann') === 1);
      const started = Date.now();
      const revoked = await fetch(`${server.url}/oauth/revoke`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ client_id: app.clientId, token: app.refresh_token }),
      });
      expect(revoked.status).to.equal(200);
      const result = await called;
      expect((result.structuredContent as { code: string }).code).to.equal('UNAUTHENTICATED');
      expect(Date.now() - started).to.be.below(5000);
    } finally {
      await client.close();
    }
  });

  it('ends an MCP long-poll whose client disconnects', async () => {
    const call = {
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'recent_changes', arguments: { since: await head(), wait: 30 } },
    };
    const client = new AbortController();
    const left = fetch(`${server.url}/mcp`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify(call),
      signal: client.signal,
    }).catch(() => 'left');
    await waiting(1);
    client.abort();
    expect(await left).to.equal('left');
    await until('the long-poll to be let go', 2000, () => server.services.live.count('erin') === 0);
  });
});
