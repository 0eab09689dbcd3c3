import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { expect } from 'chai';
import { hashSecret } from '../../../server/accounts/secrets.js';
import { loadConfig } from '../../../server/config.js';
import { startServer, type RunningServer } from '../../../server/server.js';
import { openSqliteStore } from '../../../server/store/sqlite/sqlite-store.js';
import { JSON_FILES } from '../../../server/store/sqlite/json-import.js';
import { tempDir } from '../../helpers/temp-dir.js';
import { LEGACY, writeLegacyData } from './legacy-data.js';

/** A port free right now: the OAuth grant in the legacy files is bound to the server's URL. */
async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as { port: number };
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

const mcpInitialize = (url: string, token: string) =>
  fetch(`${url}/mcp`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'legacy-test', version: '1' } },
    }),
  });

describe('moving a JSON data folder into SQLite', function () {
  this.timeout(30_000);
  const dir = tempDir('quire-legacy-');
  let server: RunningServer;
  const start = async (port: number) => startServer(loadConfig({}, { data: dir.path, port: String(port), host: '127.0.0.1' }));

  after(async () => {
    await server?.close();
    dir.cleanup();
  });

  it('imports every record on first start: the old key, session cookie, OAuth token, agent and device cursor work', async () => {
    const port = await freePort();
    await writeLegacyData(dir.path, `http://127.0.0.1:${port}/mcp`);
    server = await start(port);

    const withKey = (key: string) => fetch(`${server.url}/vault/pages`, { headers: { authorization: `Bearer ${key}` } });
    expect((await withKey(LEGACY.key)).status).to.equal(200);
    expect((await withKey('quire_notAKeyThatWasEverIssued000000000000000')).status).to.equal(401);

    const keysPage = await fetch(`${server.url}/account/keys`, {
      headers: { cookie: `quire_session=${LEGACY.session}` },
      redirect: 'manual',
    });
    expect(keysPage.status).to.equal(200);
    expect(await keysPage.text())
      .to.contain('laptop')
      .and.contain('phone');

    expect((await mcpInitialize(server.url, LEGACY.access)).status).to.equal(200);
    expect((await mcpInitialize(server.url, 'qat_unknown')).status).to.equal(401);

    expect(await server.services.agents.get('ann', 'scribe')).to.deep.include({
      mode: 'propose',
      read: [''],
      write: ['drafts/'],
      description: 'Drafts notes',
    });
    expect(await server.services.usage.get('key_000000000002')).to.include({ cursor: LEGACY.cursor });
    expect(await server.services.accounts.checkPassword('ann', LEGACY.password)).to.equal(true);
    expect((await server.services.store.signinLinks.byHash(hashSecret(LEGACY.link), Date.now()))?.user).to.equal('ann');
    expect((await server.services.store.oauthClients.get('client-1'))?.client_name).to.equal('Old Assistant');

    for (const name of JSON_FILES) {
      expect(existsSync(join(dir.path, name)), name).to.equal(false);
      expect(existsSync(join(dir.path, `${name}.migrated`)), `${name}.migrated`).to.equal(true);
    }
  });

  it('does nothing on a second start, even if an old file reappears', async () => {
    const port = server.port;
    await server.close();
    writeFileSync(
      join(dir.path, 'accounts.json'),
      JSON.stringify({ version: 1, users: { ghost: { name: 'ghost', plan: 'personal', created_at: new Date().toISOString() } }, keys: [] }),
    );
    server = await start(port);
    expect((await server.services.accounts.users()).map((u) => u.name)).to.deep.equal(['ann']);
    expect((await fetch(`${server.url}/vault/pages`, { headers: { authorization: `Bearer ${LEGACY.key}` } })).status).to.equal(200);
    expect(existsSync(join(dir.path, 'accounts.json')), 'left alone').to.equal(true);
  });

  it('imports nothing and renames nothing when a file cannot be read', async () => {
    const broken = tempDir('quire-legacy-broken-');
    try {
      await writeLegacyData(broken.path, 'http://127.0.0.1:1/mcp');
      writeFileSync(join(broken.path, 'oauth-grants.json'), '{ "version": 1, "grants": [');
      expect(() => openSqliteStore(broken.path)).to.throw(SyntaxError);
      expect(readdirSync(broken.path).filter((f) => f.endsWith('.migrated'))).to.deep.equal([]);
      writeFileSync(join(broken.path, 'oauth-grants.json'), JSON.stringify({ version: 1, grants: [], codes: [], tokens: [] }));
      const retried = openSqliteStore(broken.path);
      expect((await retried.users.list()).map((u) => u.name)).to.deep.equal(['ann']);
      await retried.close();
    } finally {
      broken.cleanup();
    }
  });
});
