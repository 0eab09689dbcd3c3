import { expect } from 'chai';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gitIn } from '../../helpers/temp-vault.js';
import { startTestServer, type TestServer } from '../../helpers/test-server.js';
import { tempDir } from '../../helpers/temp-dir.js';
import { vaultDir } from '../../../server/vaults/user-vault.js';
import { AccountStore } from '../../../server/accounts/account-store.js';
import { openSqliteStore } from '../../../server/store/sqlite/sqlite-store.js';
import { OTHER_WRITERS_SEEN_MS } from '../../../server/store/store.js';

const BAD_PATHS: [string, string][] = [
  ['empty', ''],
  ['absolute', '/etc/passwd.md'],
  ['dot-dot', 'a/../b.md'],
  ['dot segment', 'a/./b.md'],
  ['backslash', 'a\\b.md'],
  ['NUL', 'a\u0000b.md'],
  ['control character', 'a\u0007b.md'],
  ['.git', '.git/config'],
  ['dot folder', '.obsidian/app.md'],
  ['hidden file', 'notes/.secret.md'],
  ['long segment', `${'x'.repeat(256)}.md`],
  ['long path', `${'abcdefghij/'.repeat(100)}x.md`],
];

describe('REST refusals', () => {
  let server: TestServer;
  let writeKey: string;

  beforeEach(async () => {
    server = await startTestServer();
    writeKey = await server.key('alice', 'write');
  });
  afterEach(() => server.stop());

  const head = () => gitIn(vaultDir(server.dataDir, 'alice'), 'rev-parse', 'main').trim();

  it('refuses every bad path with INVALID_PATH and writes nothing', async () => {
    const before = head();
    for (const [name, path] of BAD_PATHS) {
      const res = await server.api('/vault/page', { method: 'POST', key: writeKey, json: { path, content: 'x' } });
      expect(res.status, name).to.equal(400);
      expect((await res.json()).code, name).to.equal('INVALID_PATH');
    }
    const viaUrl = await server.api('/vault/page/a%2F..%2F..%2Fsecret.md', { key: writeKey });
    expect(viaUrl.status).to.equal(400);
    expect(head()).to.equal(before);
  });

  it('answers 401 with WWW-Authenticate for missing, unknown and OAuth-looking tokens', async () => {
    for (const auth of [undefined, 'Bearer quire_nope', 'Bearer qat_sometoken', 'Basic abc']) {
      const res = await server.api('/vault/pages', { headers: auth ? { authorization: auth } : {} });
      expect(res.status).to.equal(401);
      expect(res.headers.get('www-authenticate')).to.match(/^Bearer/);
      expect((await res.json()).code).to.equal('UNAUTHENTICATED');
    }
    const oauth = await server.api('/vault/pages', { headers: { authorization: 'Bearer qat_sometoken' } });
    expect((await oauth.json()).message).to.match(/MCP only/);
  });

  it('refuses writes with a read key (INSUFFICIENT_SCOPE) and API access on a plan without it (PLAN_REQUIRED)', async () => {
    const readKey = await server.key('alice', 'read');
    expect((await server.api('/vault/pages', { key: readKey })).status).to.equal(200);
    const write = await server.api('/vault/page', { method: 'POST', key: readKey, json: { path: 'a.md', content: 'x' } });
    expect(write.status).to.equal(403);
    expect(await write.json()).to.include({ code: 'INSUFFICIENT_SCOPE', required_scope: 'write' });
    const capture = await server.api('/vault/capture', { method: 'POST', key: readKey, json: { title: 't', content: 'x' } });
    expect(capture.status).to.equal(403);
    const freeKey = await server.key('bob', 'write', { plan: 'free' });
    const res = await server.api('/vault/pages', { key: freeKey });
    expect(res.status).to.equal(403);
    expect((await res.json()).code).to.equal('PLAN_REQUIRED');
  });

  it('refuses malformed JSON, non-object bodies, missing fields and oversize pages, writing nothing', async () => {
    const before = head();
    const malformed = await server.api('/vault/page', {
      method: 'POST',
      key: writeKey,
      headers: { 'content-type': 'application/json' },
      body: '{"path": "a.md",',
    });
    expect(malformed.status).to.equal(400);
    expect((await malformed.json()).code).to.equal('INVALID_REQUEST');
    const array = await server.api('/vault/page', { method: 'POST', key: writeKey, json: [1, 2] });
    expect(array.status).to.equal(400);
    const missing = await server.api('/vault/page', { method: 'POST', key: writeKey, json: { path: 'a.md' } });
    expect(await missing.json()).to.include({ code: 'INVALID_REQUEST', field: 'content' });
    const badHash = await server.api('/vault/page', {
      method: 'POST',
      key: writeKey,
      json: { path: 'a.md', content: 'x', base_hash: 'abc' },
    });
    expect(await badHash.json()).to.include({ code: 'INVALID_REQUEST', field: 'base_hash' });
    const form = await server.api('/vault/page', {
      method: 'POST',
      key: writeKey,
      headers: { 'content-type': 'text/plain' },
      body: 'path=a.md',
    });
    expect(form.status).to.equal(400);
    const big = await server.api('/vault/page', {
      method: 'POST',
      key: writeKey,
      json: { path: 'big.md', content: 'x'.repeat(1024 * 1024 + 1) },
    });
    expect(big.status).to.equal(413);
    expect((await big.json()).code).to.equal('PAYLOAD_TOO_LARGE');
    const huge = await server.api('/vault/page', {
      method: 'POST',
      key: writeKey,
      json: { path: 'big.md', content: 'x'.repeat(8 * 1024 * 1024) },
    });
    expect(huge.status).to.equal(413);
    expect(head()).to.equal(before);
  });

  it('stops a key as soon as it is revoked', async () => {
    expect((await server.api('/vault/pages', { key: writeKey })).status).to.equal(200);
    const name = (await server.services.accounts.keys('alice'))[0].name;
    await server.services.accounts.revokeKey('alice', name);
    expect((await server.api('/vault/pages', { key: writeKey })).status).to.equal(401);
  });

  it('stops a key revoked by another process (the CLI) within a tenth of a second', async () => {
    expect((await server.api('/vault/pages', { key: writeKey })).status).to.equal(200);
    const cli = openSqliteStore(server.dataDir);
    try {
      const name = (await server.services.accounts.keys('alice'))[0].name;
      await new AccountStore(cli).revokeKey('alice', name);
    } finally {
      await cli.close();
    }
    await new Promise((resolve) => setTimeout(resolve, OTHER_WRITERS_SEEN_MS));
    expect((await server.api('/vault/pages', { key: writeKey })).status).to.equal(401);
  });

  it('keeps each user inside their own vault', async () => {
    await server.api('/vault/page', { method: 'POST', key: writeKey, json: { path: 'mine.md', content: 'alice only' } });
    const bobKey = await server.key('bob', 'write');
    expect((await server.api('/vault/page/mine.md', { key: bobKey })).status).to.equal(404);
  });
});

describe('REST rate limits', () => {
  let server: TestServer;
  const plans = tempDir('quire-plans-');

  before(() => {
    writeFileSync(
      join(plans.path, 'plans.json'),
      JSON.stringify({ tiny: { rest: true, mcp: true, limits: { sync: 5, read: 3, write: 2, expensive: 1 } } }),
    );
  });
  after(() => plans.cleanup());
  beforeEach(async () => {
    server = await startTestServer({ QUIRE_PLANS_FILE: join(plans.path, 'plans.json') });
  });
  afterEach(() => server.stop());

  it('reports the three headers on every response and answers 429 with Retry-After past the limit, per user across keys', async () => {
    const k1 = await server.key('carol', 'write', { plan: 'tiny' });
    const k2 = await server.key('carol', 'read', { plan: 'tiny' });
    const seen: (string | null)[][] = [];
    for (const k of [k1, k2, k1]) {
      const res = await server.api('/vault/pages', { key: k });
      expect(res.status).to.equal(200);
      seen.push(['limit', 'remaining', 'bucket'].map((h) => res.headers.get(`x-ratelimit-${h}`)));
    }
    expect(seen).to.deep.equal([
      ['3', '2', 'read'],
      ['3', '1', 'read'],
      ['3', '0', 'read'],
    ]);
    const limited = await server.api('/vault/pages', { key: k2 });
    expect(limited.status).to.equal(429);
    expect(Number(limited.headers.get('retry-after'))).to.be.within(1, 60);
    expect(limited.headers.get('x-ratelimit-remaining')).to.equal('0');
    expect(limited.headers.get('x-ratelimit-bucket')).to.equal('read');
    expect((await limited.json()).code).to.equal('RATE_LIMITED');
    // Buckets are separate: writes still have their own budget.
    const write = await server.api('/vault/page', { method: 'POST', key: k1, json: { path: 'a.md', content: 'x' } });
    expect(write.status).to.equal(201);
    expect(write.headers.get('x-ratelimit-bucket')).to.equal('write');
    expect(write.headers.get('x-ratelimit-limit')).to.equal('2');
  });
});
