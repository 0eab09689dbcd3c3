import { expect } from 'chai';
import { existsSync, mkdirSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { vaultDir } from '../../server/vaults/user-vault.js';
import { tempDir } from '../helpers/temp-dir.js';
import { gitIn } from '../helpers/temp-vault.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

/**
 * `/vault/file/{path}` takes any name a client sends, raw bytes behind it: it must reach
 * nothing but the vault's own visible files, never `.git`, never outside, never through a link.
 */
describe('attack: paths of /vault/file', function () {
  this.timeout(60_000);
  let server: TestServer;
  let key: string;
  let outside: ReturnType<typeof tempDir>;
  const dir = () => vaultDir(server.dataDir, 'eve');

  beforeEach(async () => {
    server = await startTestServer();
    key = await server.key('eve', 'write');
    outside = tempDir('quire-outside-');
  });
  afterEach(async () => {
    await server.stop();
    outside.cleanup();
  });

  /** Raw request target: fetch would resolve `..` itself, node's http sends it as written. */
  const raw = async (method: string, target: string, body?: Buffer) => {
    const { request } = await import('node:http');
    return new Promise<{ status: number; body: Record<string, unknown> }>((resolve, reject) => {
      const req = request(`${server.url}${target}`, { method, headers: { authorization: `Bearer ${key}` } }, (res) => {
        const parts: Buffer[] = [];
        res.on('data', (p: Buffer) => parts.push(p));
        res.on('end', () => {
          const text = Buffer.concat(parts).toString();
          resolve({ status: res.statusCode!, body: text.startsWith('{') ? JSON.parse(text) : { text } });
        });
      });
      req.on('error', reject);
      req.end(body);
    });
  };

  it('refuses dot segments, .git and other hidden names, NUL and controls, backslashes, device names and overlong names', async () => {
    const before = gitIn(dir(), 'rev-parse', 'HEAD').trim();
    const targets = [
      '/vault/file/../../etc/passwd',
      '/vault/file/..%2f..%2foutside.png',
      '/vault/file/a/%2e%2e/%2e%2e/x.png',
      '/vault/file/.git/config',
      '/vault/file/.git/hooks/pre-commit',
      '/vault/file/notes/.git/HEAD',
      '/vault/file/.GIT/config',
      '/vault/file/.obsidian/app.json',
      '/vault/file/.gitignore',
      '/vault/file/a%00b.png',
      '/vault/file/a%0ab.png',
      '/vault/file/a%5cb.png',
      '/vault/file/%2fetc%2fpasswd',
      '/vault/file/CON.png',
      '/vault/file/trailing.',
      `/vault/file/${'x'.repeat(256)}.png`,
      `/vault/file/${Array.from({ length: 120 }, () => 'abcdefghi').join('/')}.png`,
      '/vault/file/',
    ];
    for (const target of targets) {
      const put = await raw('PUT', target, Buffer.from('pwned'));
      // 404: the route itself was left (`..` resolved by the router, never reaching a file).
      expect(`${put.status} ${put.body.code}`, `PUT ${target}`).to.be.oneOf(['400 INVALID_PATH', '404 NOT_FOUND']);
      const get = await raw('GET', target);
      expect(get.status, `GET ${target}`).to.be.oneOf([400, 404]);
    }
    expect(gitIn(dir(), 'rev-parse', 'HEAD').trim()).to.equal(before);
    expect(gitIn(dir(), 'status', '--porcelain', '--ignored')).to.equal('');
    expect(existsSync(join(dir(), '..', 'outside.png'))).to.equal(false);
  });

  it('never reads or lists .git or hidden files, even when HEAD tracks them', async () => {
    expect((await raw('GET', '/vault/file/.gitignore')).status).to.equal(400);
    const list = await raw('GET', '/vault/files');
    expect((list.body.files as { path: string }[]).map((f) => f.path)).to.deep.equal([]);
  });

  it('refuses a name that differs only in case from an existing file, and a write through a symbolic link', async () => {
    expect((await raw('PUT', '/vault/file/img/Diagram.png', Buffer.from('a'))).status).to.equal(201);
    const twin = await raw('PUT', '/vault/file/img/diagram.PNG', Buffer.from('b'));
    expect([twin.status, twin.body.code]).to.deep.equal([409, 'CASE_COLLISION']);

    symlinkSync(outside.path, join(dir(), 'linked'));
    const through = await raw('PUT', '/vault/file/linked/x.png', Buffer.from('c'));
    expect([through.status, through.body.code]).to.deep.equal([400, 'INVALID_PATH']);
    expect(readdirSync(outside.path)).to.deep.equal([]);
    writeFileSync(join(outside.path, 'secret.png'), 'secret');
    expect((await raw('GET', '/vault/file/linked/secret.png')).status).to.equal(404);
  });

  it('turns neither a file into a folder nor a folder into a file behind git’s back', async () => {
    expect((await raw('PUT', '/vault/file/a.png', Buffer.from('a'))).status).to.equal(201);
    const under = await raw('PUT', '/vault/file/a.png/b.png', Buffer.from('b'));
    expect(under.status).to.be.within(400, 499);
    mkdirSync(join(dir(), 'folder'));
    expect((await raw('PUT', '/vault/file/folder/c.png', Buffer.from('c'))).status).to.equal(201);
    const over = await raw('PUT', '/vault/file/folder', Buffer.from('d'));
    expect(over.status).to.be.within(400, 499);
    expect(gitIn(dir(), 'status', '--porcelain')).to.equal('');
    // A refused upload was streamed into git before its checks: an unreferenced blob, as git leaves them.
    expect(gitIn(dir(), 'fsck', '--strict', '--no-dangling')).to.equal('');
  });
});
