import { expect } from 'chai';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { vaultDir } from '../../server/vaults/user-vault.js';
import { zeroPacks } from '../helpers/corrupt-object.js';
import { gitIn } from '../helpers/temp-vault.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';
import { call, mcpClient } from '../server/mcp/mcp-client.js';
import { Browser, readForm } from '../server/oauth/flow.js';

const PASSWORD = 'correct horse battery';
/** Where Quire is installed: no answer may name it (stack frames and module paths do). */
const INSTALL = fileURLToPath(new URL('../..', import.meta.url)).replace(/\/$/, '');
const BAD_NAMES = ['CON.md', 'con.txt.md', 'a:b.md', 'trailing. /x.md', 'x .md', 'notes/aux', 'LPT¹.md', 'why?.md'];

function expectSecurityHeaders(res: Response): void {
  expect(res.headers.get('x-content-type-options')).to.equal('nosniff');
  expect(res.headers.get('x-frame-options')).to.equal('DENY');
  expect(res.headers.get('referrer-policy')).to.equal('same-origin');
  expect(res.headers.get('content-security-policy'))
    .to.match(/default-src 'none'/)
    .and.match(/frame-ancestors 'none'/);
}

/** The body of an answer that reveals nothing of the server, with the headers every answer carries. */
async function cleanBody(res: Response, type: 'json' | 'html' | 'plain'): Promise<string> {
  const body = await res.text();
  expect(res.headers.get('content-type')).to.contain({ json: 'application/json', html: 'text/html', plain: 'text/plain' }[type]);
  expect(body).not.to.match(/\bat \S+ \(|:\d+:\d+\)|node_modules/);
  expect(body).not.to.contain(INSTALL);
  expectSecurityHeaders(res);
  return body;
}

async function jsonError(res: Response, status: number, code: string): Promise<{ code: string; message: string }> {
  expect(res.status).to.equal(status);
  const body = JSON.parse(await cleanBody(res, 'json'));
  expect(body.code).to.equal(code);
  return body;
}

async function sessionCookie(server: TestServer, user: string): Promise<string> {
  await server.services.accounts.setPassword(user, PASSWORD);
  const browser = new Browser();
  const { hidden } = readForm(await (await browser.get(`${server.url}/account/signin`)).text());
  const signedIn = await browser.post(`${server.url}/account/signin`, [...hidden, ['username', user], ['password', PASSWORD]]);
  return /^quire_session=[^;]+/.exec(signedIn.headers.getSetCookie().find((c) => c.startsWith('quire_session='))!)![0];
}

describe('malformed and unexpected input answers a clean error and changes nothing', () => {
  let server: TestServer;
  let key: string;
  let head: () => string;

  before(async () => {
    // A small page limit keeps the oversize body small.
    server = await startTestServer({}, (c) => ({ ...c, maxPageBytes: 4096 }));
    key = await server.key('alice', 'write');
    await server.api('/vault/page', { method: 'POST', key, json: { path: 'notes/kept', content: 'kept' } });
    head = () => gitIn(vaultDir(server.dataDir, 'alice'), 'rev-parse', 'main').trim();
  });
  after(() => server.stop());

  it('treats a session cookie that does not decode as no session', async () => {
    for (const path of ['/account/', '/account/agents']) {
      const res = await fetch(`${server.url}${path}`, { headers: { cookie: 'quire_session=%E0%A4%A' }, redirect: 'manual' });
      expect(res.status, path).to.equal(303);
      expect(res.headers.get('location')).to.equal('/account/signin');
      expectSecurityHeaders(res);
    }
  });

  it('answers a badly encoded account address with a plain 400 page, signed in or not', async () => {
    const cookie = await sessionCookie(server, 'alice');
    for (const headers of [{ cookie }, {}, { cookie: 'quire_session=%E0%A4%A' }]) {
      const res = await fetch(`${server.url}/account/agents/%E0%A4%A`, { headers, redirect: 'manual' });
      expect(res.status).to.equal(400);
      expect(await cleanBody(res, 'html'))
        .to.contain('INVALID_REQUEST')
        .and.contain('not valid UTF-8');
    }
  });

  it('answers a page path that does not decode with INVALID_PATH, and a bad query with INVALID_REQUEST', async () => {
    for (const path of ['%E0%A4%A', '%C3%28.md', '%FF', 'notes/%C3']) {
      await jsonError(await server.api(`/vault/page/${path}`, { key }), 400, 'INVALID_PATH');
      await jsonError(await server.api(`/vault/page/${path}`, { key, method: 'DELETE' }), 400, 'INVALID_PATH');
    }
    await jsonError(await server.api('/vault/backlinks/%E0%A4%A', { key }), 400, 'INVALID_PATH');
    await jsonError(await server.api('/vault/graph?path=%C3%28', { key }), 400, 'INVALID_PATH');
    await jsonError(await server.api('/vault/search?q=%E0%A4%A', { key }), 400, 'INVALID_REQUEST');
    await jsonError(await server.api('/vault/search?q=%C3%28', { key }), 400, 'INVALID_REQUEST');
    await jsonError(await server.api('/vault/agents/%E0%A4%A', { key }), 400, 'INVALID_REQUEST');
  });

  it('refuses an empty path as INVALID_PATH on write, read and delete', async () => {
    const before = head();
    const written = await jsonError(
      await server.api('/vault/page', { method: 'POST', key, json: { path: '', content: 'x' } }),
      400,
      'INVALID_PATH',
    );
    expect(written.message).to.contain('path is empty');
    for (const method of ['GET', 'DELETE']) {
      for (const path of ['/vault/page/', '/vault/page']) await jsonError(await server.api(path, { key, method }), 400, 'INVALID_PATH');
    }
    expect(head()).to.equal(before);
  });

  it('refuses names Windows cannot check out, saying why, and writes nothing', async () => {
    const before = head();
    for (const path of BAD_NAMES) {
      const res = await server.api('/vault/page', { method: 'POST', key, json: { path, content: 'x' } });
      const body = await jsonError(res, 400, 'INVALID_PATH');
      expect(body.message, path).to.match(/device name on Windows|is not allowed in a name|may not end in a dot or a space/);
      await jsonError(
        await server.api('/vault/move', { method: 'POST', key, json: { from: 'notes/kept', to: path } }),
        400,
        'INVALID_PATH',
      );
    }
    expect(head()).to.equal(before);
    const list = await (await server.api('/vault/pages', { key })).json();
    expect(list.pages.map((p: { path: string }) => p.path)).to.deep.equal(['notes/kept.md']);
  });

  it('answers a malformed or oversize JSON body with a JSON 400 or 413', async () => {
    const before = head();
    const post = (body: string) =>
      server.api('/vault/page', { method: 'POST', key, headers: { 'content-type': 'application/json' }, body });
    await jsonError(await post('{"a":'), 400, 'INVALID_REQUEST');
    await jsonError(await post(JSON.stringify({ path: 'big', content: 'x'.repeat(200_000) })), 413, 'PAYLOAD_TOO_LARGE');
    expect(head()).to.equal(before);
  });

  it('answers unknown routes with a JSON 404 and the security headers', async () => {
    for (const path of ['/nope', '/vault/nope', '/favicon.ico']) await jsonError(await server.api(path, { key }), 404, 'NOT_FOUND');
    const healthz = await server.api('/healthz?x=%E0%A4%A');
    await jsonError(healthz, 400, 'INVALID_REQUEST');
  });

  it('answers the other surfaces in the format their clients read', async () => {
    const register = await fetch(`${server.url}/oauth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"a":',
    });
    expect(register.status).to.equal(400);
    expect(JSON.parse(await cleanBody(register, 'json'))).to.include({ error: 'invalid_request' });
    const mcp = await fetch(`${server.url}/mcp?x=%E0%A4%A`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: '{}',
    });
    expect(mcp.status).to.equal(400);
    expect(JSON.parse(await cleanBody(mcp, 'json')).error).to.deep.include({ code: -32600, data: { code: 'INVALID_REQUEST' } });
    const git = await fetch(`${server.url}/vault.git/%E0%A4%A/info/refs`);
    expect(git.status).to.equal(400);
    expect(await cleanBody(git, 'plain')).to.contain('not valid UTF-8');
  });

  it('gives an MCP tool call with such a path an isError result carrying INVALID_PATH', async () => {
    const before = head();
    const client = await mcpClient(server.url, { bearer: key });
    try {
      for (const path of ['', ...BAD_NAMES]) {
        const result = await call(client, 'write_page', { path, content: 'x' });
        expect(result.isError, path).to.equal(true);
        expect(result.structuredContent, path).to.include({ code: 'INVALID_PATH' });
      }
      for (const path of ['', 'a/../b', 'x\u0000y']) {
        const read = await call(client, 'read_page', { path });
        expect(read.structuredContent, path).to.include({ code: 'INVALID_PATH' });
      }
    } finally {
      await client.close();
    }
    expect(head()).to.equal(before);
  });
});

describe('an unexpected failure answers INTERNAL without a stack', () => {
  let server: TestServer;

  before(async () => {
    server = await startTestServer({ QUIRE_WATCH: 'false' });
  });
  after(() => server.stop());

  it('as JSON on the API and as a plain page in the account area, logged once each without secrets', async () => {
    const key = await server.key('alice', 'write');
    // Larger than the blobs a vault answers from memory after writing them (256 KiB): read from git.
    await server.api('/vault/page', { method: 'POST', key, json: { path: 'p', content: 'x'.repeat(300 << 10) } });
    const cookie = await sessionCookie(server, 'alice');
    // A vault whose git objects are damaged, then gone (the server holds its packs open): reading
    // it fails in a way no code path expects.
    zeroPacks(vaultDir(server.dataDir, 'alice'));
    rmSync(join(vaultDir(server.dataDir, 'alice'), '.git', 'objects'), { recursive: true });

    const api = await jsonError(await server.api('/vault/page/p.md', { key }), 500, 'INTERNAL');
    expect(api.message).to.equal('Internal server error');
    const page = await fetch(`${server.url}/account/`, { headers: { cookie } });
    expect(page.status).to.equal(500);
    expect(await cleanBody(page, 'html'))
      .to.contain('INTERNAL')
      .and.contain('Something went wrong');

    const errors = server.logs.filter((line) => line.level === 'error');
    expect(errors.map((line) => line.msg)).to.deep.equal(['internal error', 'internal error']);
    // The cause is logged: zlib refusing the zeroed object.
    expect(JSON.stringify(errors)).to.contain('unknown compression method');
    const log = JSON.stringify(server.logs);
    expect(log).not.to.contain(key).and.not.to.contain(cookie.split('=')[1]);
  });
});

describe('a name Windows refuses that arrives by git', () => {
  let server: TestServer;

  before(async () => {
    server = await startTestServer();
    const dir = vaultDir(server.dataDir, 'bob');
    mkdirSync(dir, { recursive: true });
    gitIn(dir, 'init', '-q', '-b', 'main');
    for (const [name, text] of [
      ['a:b.md', 'colon'],
      ['CON.md', 'device'],
      ['ok.md', 'fine'],
    ])
      writeFileSync(join(dir, name), text);
    gitIn(dir, 'add', '.');
    gitIn(dir, '-c', 'user.name=t', '-c', 'user.email=t@example.com', 'commit', '-q', '-m', 'from elsewhere');
  });
  after(() => server.stop());

  it('stays a page, flagged by lint, that the owner can read and rename to a portable name', async () => {
    const key = await server.key('bob', 'write');
    const list = await (await server.api('/vault/pages', { key })).json();
    expect(list.pages.map((p: { path: string }) => p.path)).to.deep.equal(['CON.md', 'a:b.md', 'ok.md']);
    expect((await (await server.api('/vault/page/a%3Ab.md', { key })).json()).content).to.equal('colon');
    const lint = await (await server.api('/vault/lint', { key })).json();
    const flagged = lint.findings.filter((f: { rule: string }) => f.rule === 'unportable-name').map((f: { path: string }) => f.path);
    expect(flagged).to.deep.equal(['CON.md', 'a:b.md']);
    // Renaming onto another unportable name is refused; onto a portable one it works.
    await jsonError(await server.api('/vault/move', { method: 'POST', key, json: { from: 'a:b.md', to: 'c:d.md' } }), 400, 'INVALID_PATH');
    expect((await server.api('/vault/move', { method: 'POST', key, json: { from: 'a:b.md', to: 'a-b.md' } })).status).to.equal(200);
    expect((await server.api('/vault/page/CON.md', { method: 'DELETE', key })).status).to.equal(200);
    const files = gitIn(vaultDir(server.dataDir, 'bob'), 'ls-tree', '--name-only', 'main').split('\n').filter(Boolean);
    expect(files).to.deep.equal(['a-b.md', 'ok.md']);
  });
});
