import { expect } from 'chai';
import { ResourceUpdatedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { startTestServer, type TestServer } from '../../helpers/test-server.js';
import { until } from '../../helpers/until.js';
import { mcpClient } from '../mcp/mcp-client.js';

const IDLE_MS = 300;

describe('idle vaults are closed and reopened on their next request', function () {
  this.timeout(30_000);
  let server: TestServer;
  let key: string;
  const write = async (path: string, content: string) => {
    const res = await server.api('/vault/page', { key, method: 'POST', json: { path, content } });
    expect(res.status).to.be.below(300);
  };
  const evicted = () => until('the vault closed for idleness', 5000, () => server.services.vaults.loadedWorkspace('ida') === undefined);
  before(async () => {
    server = await startTestServer({ QUIRE_VAULT_IDLE_MS: String(IDLE_MS), QUIRE_WATCH_SETTLE_MS: '30', QUIRE_WATCH_STABLE_MS: '0' });
    key = await server.key('ida', 'write');
  });
  after(() => server.stop());

  it('closes the vault and its file watcher after the idle time, and logs the memory line', async () => {
    await write('a.md', 'one\n');
    expect(server.services.vaults.watchers!.keys()).to.include('ida');
    await evicted();
    expect(server.services.vaults.watchers!.keys()).not.to.include('ida');
    // Logged once closed: its queue drained and its index saved.
    const line = await until('the eviction logged', 5000, () => server.logs.find((l) => l.msg === 'vault evicted' && l.vault === 'ida'));
    expect(line).to.include({ reason: 'idle' });
    expect(line).to.have.keys(
      'level',
      'time',
      'msg',
      'vault',
      'reason',
      'vault_bytes',
      'ms',
      'rss',
      'heap_used',
      'external',
      'loaded_vaults',
      'loaded_bytes',
      'budget',
      'evictions',
    );
    const page = await (await server.api('/vault/page/a.md', { key })).json();
    expect(page.content).to.equal('one\n');
    expect(server.services.vaults.watchers!.keys(), 'watched again once reopened').to.include('ida');
  });

  it('still notifies an MCP resource subscription after its vault was closed and reopened', async () => {
    const client = await mcpClient(server.url, { bearer: key });
    const heard: string[] = [];
    client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => void heard.push(n.params.uri));
    await client.subscribeResource({ uri: 'quire://page/watched.md' });
    await write('watched.md', 'one\n');
    await until('the first update', 2000, () => heard.length === 1);
    await evicted();
    await write('watched.md', 'two\n');
    await until('the update after the reopen', 2000, () => heard.length === 2);
    expect(heard).to.deep.equal(['quire://page/watched.md', 'quire://page/watched.md']);
    await client.close();
  });

  it("reports the vault's own memory in health, and nothing server-wide", async () => {
    await write('b.md', '# Memory\n\nsome words to index\n');
    const health = await (await server.api('/vault/health', { key })).json();
    expect(health.memory.vault_bytes).to.be.greaterThan(0);
    // Other users' activity (how many vaults are loaded, the process's RSS) is the operator's, in the log.
    expect(health.memory).to.have.keys('vault_bytes');
  });
});
