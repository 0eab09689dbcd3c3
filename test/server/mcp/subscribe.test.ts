import { writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { McpError, ResourceUpdatedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { startTestServer, type TestServer } from '../../helpers/test-server.js';
import { until } from '../../helpers/until.js';
import { mcpClient, rpc } from './mcp-client.js';

const uri = (path: string) => `quire://page/${path}`;

/** A connected client and the URIs of the updates it heard, in order. */
async function listener(server: TestServer, key: string): Promise<{ client: Client; heard: string[] }> {
  const client = await mcpClient(server.url, { bearer: key });
  const heard: string[] = [];
  client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => void heard.push(n.params.uri));
  return { client, heard };
}

describe('MCP resources/subscribe: notifications/resources/updated for subscribed pages', () => {
  let server: TestServer;
  let owner: string;
  const write = (key: string, path: string, content: string) =>
    server.api('/vault/page', { key, method: 'POST', json: { path, content } }).then((res) => expect(res.status).to.be.below(300));
  before(async () => {
    server = await startTestServer({ QUIRE_WATCH_SETTLE_MS: '30', QUIRE_WATCH_STABLE_MS: '0' });
    owner = await server.key('una', 'write');
  });
  after(() => server.stop());

  it('announces a REST write and a folder edit of a subscribed page, and nothing once unsubscribed', async () => {
    const { client, heard } = await listener(server, owner);
    await client.subscribeResource({ uri: uri('notes/a.md') });
    await client.subscribeResource({ uri: uri('notes/b.md') });
    await write(owner, 'notes/a.md', 'one');
    await until('the update of a.md', 1000, () => heard.includes(uri('notes/a.md')));
    const workspace = await server.services.vaults.get('una');
    mkdirSync(join(workspace.dir, 'notes'), { recursive: true });
    writeFileSync(join(workspace.dir, 'notes', 'b.md'), 'edited in the folder\n');
    await until('the update of b.md', 3000, () => heard.includes(uri('notes/b.md')));
    await client.unsubscribeResource({ uri: uri('notes/a.md') });
    heard.length = 0;
    await write(owner, 'notes/a.md', 'two');
    await write(owner, 'notes/b.md', 'two');
    await until('the update of b.md', 1000, () => heard.includes(uri('notes/b.md')));
    // Announced in commit order: a.md's would have come first.
    expect(heard).to.deep.equal([uri('notes/b.md')]);
    await client.close();
  });

  it('removes the commit listener when the session ends (no leak)', async () => {
    const { vaults } = server.services;
    const before = vaults.commitListenerCount('una');
    const { client } = await listener(server, owner);
    await client.subscribeResource({ uri: uri('notes/a.md') });
    expect(vaults.commitListenerCount('una')).to.equal(before + 1);
    await (client.transport as StreamableHTTPClientTransport).terminateSession();
    await until('the listener removed', 1000, () => vaults.commitListenerCount('una') === before);
    await client.close();
  });

  it('refuses subscriptions without a session, and URIs that are not pages', async () => {
    const res = await rpc(
      server.url,
      { jsonrpc: '2.0', id: 1, method: 'resources/subscribe', params: { uri: uri('notes/a.md') } },
      { authorization: `Bearer ${owner}` },
    );
    expect((await res.json()).error.message).to.match(/needs a session/);
    const { client } = await listener(server, owner);
    for (const bad of ['quire://guide', uri('..%2Fescape.md')]) {
      const err = await client.subscribeResource({ uri: bad }).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(err, bad).to.be.instanceOf(McpError);
    }
    await client.close();
  });

  it('never tells an agent about a page outside its read folders, even one it subscribed to before losing access', async () => {
    await server.services.agents.put('una', 'proj', { mode: 'read', read: ['projects/', 'shared/'], write: [] });
    const agentKey = await server.key('una', 'read', { agent: 'proj', name: 'proj-key' });
    const { client, heard } = await listener(server, agentKey);
    const hidden = await client.subscribeResource({ uri: uri('private/diary.md') }).then(
      () => undefined,
      (e: McpError) => e,
    );
    expect(hidden?.code).to.equal(-32002);
    await client.subscribeResource({ uri: uri('projects/plan.md') });
    await client.subscribeResource({ uri: uri('shared/list.md') });
    await server.services.agents.put('una', 'proj', { mode: 'read', read: ['shared/'], write: [] });
    await write(owner, 'private/diary.md', 'secret');
    await write(owner, 'projects/plan.md', 'no longer yours');
    await write(owner, 'shared/list.md', 'still yours');
    await until('the update of shared/list.md', 1000, () => heard.includes(uri('shared/list.md')));
    expect(heard).to.deep.equal([uri('shared/list.md')]);
    await client.close();
  });
});
