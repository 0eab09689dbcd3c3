import { expect } from 'chai';
import { existsSync, mkdirSync, readdirSync, symlinkSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { hashBlob } from '../../vault-store/git/hash-blob.js';
import { tempDir } from '../helpers/temp-dir.js';
import { startTestServer } from '../helpers/test-server.js';
import { recorder, syncOnce, writePage } from '../scripts/sync/sync-helpers.js';

const HEAD = 'a'.repeat(40);
const HOSTILE = ['../escape.md', 'a/../../escape.md', '/abs.md', '.quire-sync/state.md', 'x/.git/hooks.md', 'ok.md'];

/** A server that speaks Quire's API but lists paths meant to write outside the folder. */
async function hostileServer(): Promise<{ url: string; server: Server }> {
  const server = createServer((req, res) => {
    const json = (body: unknown) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    const url = req.url ?? '';
    if (url.startsWith('/vault/whoami'))
      return json({ user: 'ana', credential: { name: 'laptop', device: true }, scopes: ['read', 'write'] });
    if (url.startsWith('/vault/health')) return json({ index: { head: HEAD } });
    if (url.startsWith('/vault/files?'))
      return json({ files: HOSTILE.map((path) => ({ path, hash: hashBlob(Buffer.from('pwned\n')) })), next_cursor: null });
    if (url.startsWith('/vault/pages/batch')) {
      const content = 'pwned\n';
      const hash = hashBlob(Buffer.from(content));
      return json({ pages: HOSTILE.map((path) => ({ path, hash, content })), missing: [] });
    }
    if (url.startsWith('/vault/changes/ack')) return json({ cursor: HEAD });
    if (url.startsWith('/vault/changes')) return json({ head: HEAD, cursor: HEAD, has_more: false, changes: [] });
    res.writeHead(404, { 'content-type': 'application/json' }).end('{"code":"NOT_FOUND","message":"no"}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

describe('quire sync writes only inside its folder, whatever the server sends', () => {
  it('never writes a path that climbs out, is absolute, or lands in the state or a .git folder', async () => {
    const root = tempDir('quire-sync-hostile-');
    const hostile = await hostileServer();
    try {
      const dir = join(root.path, 'folder');
      mkdirSync(dir);
      const fake = { url: hostile.url } as Parameters<typeof syncOnce>[0];
      await syncOnce(fake, dir, 'quire_x').catch(() => undefined);
      expect(readdirSync(root.path)).to.deep.equal(['folder']);
      expect(readdirSync(dir).sort()).to.deep.equal(['.quire-sync', 'ok.md']);
      expect(existsSync('/abs.md')).to.equal(false);
      expect(existsSync(join(dir, '.quire-sync', 'state.md'))).to.equal(false);
      expect(existsSync(join(dir, 'x'))).to.equal(false);
    } finally {
      hostile.server.close();
      root.cleanup();
    }
  });

  it('does not follow a symbolic link in the folder to write a page elsewhere', async () => {
    const server = await startTestServer();
    const root = tempDir('quire-sync-link-');
    try {
      const owner = await server.key('ana', 'write');
      const device = await server.key('ana', 'write', { device: true, name: 'laptop' });
      await writePage(server, owner, 'linked/a.md', 'through the link\n');
      const dir = join(root.path, 'folder');
      const outside = join(root.path, 'outside');
      mkdirSync(dir);
      mkdirSync(outside);
      symlinkSync(outside, join(dir, 'linked'));
      const report = recorder();
      await syncOnce(server, dir, device, { report });
      expect(readdirSync(outside)).to.deep.equal([]);
      expect(report.lines.some((l) => l.includes('linked/a.md') && l.includes('symbolic link'))).to.equal(true);
    } finally {
      root.cleanup();
      await server.stop();
    }
  });
});
