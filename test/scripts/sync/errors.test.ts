import { expect } from 'chai';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { HttpClient } from '../../../scripts/sync/http-client.js';
import { SyncError } from '../../../scripts/sync/sync-error.js';
import type { TestServer } from '../../helpers/test-server.js';
import { put, recorder, serverPages, syncOnce, syncSuite } from './sync-helpers.js';

async function listen(handler: Parameters<typeof createServer>[1]): Promise<{ url: string; server: Server }> {
  const server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

async function failure(run: () => Promise<unknown>): Promise<SyncError> {
  try {
    await run();
  } catch (err) {
    expect(err).to.be.instanceOf(SyncError);
    return err as SyncError;
  }
  throw new Error('expected the sync to fail');
}

describe('quire sync: errors a person can act on', () => {
  let server: TestServer;
  let dir: string;
  syncSuite((s) => ([server, dir] = [s.server, s.dirs[0]]));

  it('says so when the address is not a Quire server', async () => {
    const other = await listen((_req, res) => res.writeHead(404, { 'content-type': 'text/html' }).end('<h1>nope</h1>'));
    try {
      const err = await failure(() => syncOnce({ ...server, url: other.url }, dir, 'quire_x'));
      expect(err.kind).to.equal('server');
      expect(err.message).to.match(/not a Quire server/);
    } finally {
      other.server.close();
    }
  });

  it('says so when nothing listens at the address', async () => {
    const other = await listen(() => {});
    const { url } = other;
    await new Promise((resolve) => other.server.close(resolve));
    const err = await failure(() => syncOnce({ ...server, url }, dir, 'quire_x'));
    expect(err.kind).to.equal('network');
    expect(err.message).to.match(/Cannot reach/);
  });

  it('refuses a revoked key and a key that is not a device key, naming the fix', async () => {
    const device = await server.key('ana', 'write', { device: true, name: 'phone' });
    await server.services.accounts.revokeKey('ana', 'phone');
    const revoked = await failure(() => syncOnce(server, dir, device));
    expect(revoked.kind).to.equal('auth');
    expect(revoked.message).to.match(/revoked/);

    const plain = await server.key('ana', 'write');
    const notDevice = await failure(() => syncOnce(server, dir, plain));
    expect(notDevice.kind).to.equal('key');
    expect(notDevice.message).to.match(/--device/);
  });

  it('still names the fix when the key of a folder it already synced is revoked (no whoami asked then)', async () => {
    const device = await server.key('ana', 'write', { device: true, name: 'phone' });
    await syncOnce(server, dir, device);
    await server.services.accounts.revokeKey('ana', 'phone');
    const revoked = await failure(() => syncOnce(server, dir, device));
    expect(revoked.kind).to.equal('auth');
    expect(revoked.message).to.match(/revoked/);
  });

  it('reports a path the server refuses once, leaves it alone and syncs the rest', async () => {
    const owner = await server.key('ana', 'write');
    const device = await server.key('ana', 'write', { device: true, name: 'laptop' });
    put(dir, 'CON.md', 'a name Windows cannot have\n');
    put(dir, 'fine.md', 'fine\n');
    const report = recorder();
    const result = await syncOnce(server, dir, device, { report });
    expect(result.refused).to.equal(1);
    expect(report.lines.filter((l) => l.startsWith('CON.md:'))).to.have.length(1);
    expect((await serverPages(server, owner)).get('fine.md')).to.equal('fine\n');

    const again = recorder();
    expect((await syncOnce(server, dir, device, { report: again })).refused).to.equal(0);
    expect(again.lines).to.deep.equal([]);
  });

  it('waits as long as Retry-After says when the server answers 429, then goes on', async () => {
    let calls = 0;
    const limited = await listen((_req, res) => {
      calls++;
      if (calls === 1) res.writeHead(429, { 'retry-after': '1', 'content-type': 'application/json' }).end('{"code":"RATE_LIMITED"}');
      else res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
    });
    try {
      const waits: number[] = [];
      const client = new HttpClient({ server: limited.url, key: 'k', backoffMs: 10, onRetry: (_why, ms) => waits.push(ms) });
      const started = Date.now();
      const answer = await client.request('GET', '/vault/whoami');
      expect(answer.body).to.deep.equal({ ok: true });
      expect(waits).to.deep.equal([1000]);
      expect(Date.now() - started).to.be.at.least(950);
    } finally {
      limited.server.close();
    }
  });

  it('refuses to sync a folder another live quire sync holds, naming it, and leaves its lock alone', async () => {
    const device = await server.key('ana', 'write', { device: true, name: 'laptop' });
    mkdirSync(join(dir, '.quire-sync'));
    writeFileSync(join(dir, '.quire-sync', 'lock'), String(process.ppid));
    const err = await failure(() => syncOnce(server, dir, device));
    expect(err.kind).to.equal('state');
    expect(err.message).to.equal(`Another quire sync (pid ${process.ppid}) is syncing ${dir}.`);
    expect(readFileSync(join(dir, '.quire-sync', 'lock'), 'utf8')).to.equal(String(process.ppid));
  });
});
