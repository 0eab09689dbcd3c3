import { expect } from 'chai';
import { startTestServer, type TestServer } from '../../helpers/test-server.js';

/** How a REST URL finds its operation: the route table answers as Express's router did. */
describe('REST routing', () => {
  let server: TestServer;
  let key: string;

  before(async () => {
    server = await startTestServer({ QUIRE_WATCH: 'false' });
    key = await server.key('alice', 'write');
    for (const [path, content] of [
      ['a/b.md', '# B\nhello'],
      ['top.md', 'top'],
    ]) {
      expect((await server.api('/vault/page', { method: 'POST', key, json: { path, content } })).status).to.equal(201);
    }
  });
  after(() => server.stop());

  const get = (path: string, init: RequestInit = {}) => server.api(path, { key, ...init });

  it('joins a page path from its %-decoded segments, an encoded slash included', async () => {
    for (const url of ['/vault/page/a/b.md', '/vault/page/a%2Fb.md', '/vault/page/%61/b.md']) {
      const res = await get(url);
      expect(res.status, url).to.equal(200);
      expect((await res.json()).path, url).to.equal('a/b.md');
    }
  });

  it('gives the wildcard everything after the prefix: a missing path is empty, a trailing slash stays part of it', async () => {
    for (const url of ['/vault/page', '/vault/page/']) {
      const res = await get(url);
      expect(res.status, url).to.equal(400);
      expect(await res.json(), url).to.include({ code: 'INVALID_PATH', path: '' });
    }
    expect(await (await get('/vault/page/a/b.md/')).json()).to.include({ code: 'INVALID_PATH', path: 'a/b.md/' });
    expect(await (await get('/vault/page//top.md')).json()).to.include({ code: 'INVALID_PATH', path: '/top.md' });
  });

  it('allows a trailing slash after a fixed path and matches later literals in any case, but not the first segment', async () => {
    expect((await get('/vault/search/?q=hello')).status).to.equal(200);
    const id = (
      await (
        await server.api('/vault/proposals', { method: 'POST', key, json: { title: 't', changes: [{ path: 'p.md', content: 'x' }] } })
      ).json()
    ).id as string;
    expect((await get(`/vault/proposals/${id}/`)).status).to.equal(200);
    const rejected = await server.api(`/vault/proposals/${id}/REJECT`, { method: 'POST', key, json: {} });
    expect(rejected.status).to.equal(200);
    expect((await rejected.json()).status).to.equal('rejected');
    const upper = await get('/vault/SEARCH?q=hello');
    expect(upper.status).to.equal(404);
    expect((await upper.json()).message).to.equal('No such endpoint: GET /vault/SEARCH');
  });

  it('answers HEAD like GET without the body', async () => {
    const full = await get('/vault/page/top.md');
    const head = await get('/vault/page/top.md', { method: 'HEAD' });
    expect(head.status).to.equal(200);
    expect(await head.text()).to.equal('');
    for (const name of ['content-length', 'content-type', 'etag', 'x-ratelimit-bucket']) {
      expect(head.headers.get(name), name).to.equal(full.headers.get(name));
    }
  });

  it('lists the methods of a known path for OPTIONS, and refuses unknown paths and methods as NOT_FOUND, after the key', async () => {
    const options = await get('/vault/page/top.md', { method: 'OPTIONS' });
    expect(options.status).to.equal(200);
    expect(options.headers.get('allow')).to.equal('DELETE, GET, HEAD');
    expect(await options.text()).to.equal('DELETE, GET, HEAD');
    for (const [method, url] of [
      ['OPTIONS', '/vault/nothing'],
      ['GET', '/vault/nothing'],
      ['DELETE', '/vault/search'],
      ['GET', '/vault/'],
    ]) {
      const res = await get(url, { method });
      expect(res.status, `${method} ${url}`).to.equal(404);
      expect(await res.json(), `${method} ${url}`).to.deep.equal({ code: 'NOT_FOUND', message: `No such endpoint: ${method} ${url}` });
    }
    expect((await server.api('/vault/nothing')).status).to.equal(401);
  });

  it('takes every URL under /vault, its prefix in any case, with the headers every answer carries; /vault.git and /vaultx are not the API', async () => {
    const upper = await get('/VAULT/page/top.md');
    expect(upper.status).to.equal(200);
    expect((await upper.json()).path).to.equal('top.md');
    for (const res of [upper, await get('/vault/nothing'), await server.api('/vault/page/top.md')]) {
      expect(res.headers.get('x-frame-options')).to.equal('DENY');
      expect(res.headers.get('content-security-policy')).to.contain("default-src 'none'");
    }
    expect(await (await get('/vault?x=1')).json()).to.deep.equal({ code: 'NOT_FOUND', message: 'No such endpoint: GET /vault' });
    const beside = await get('/vaultx/page/top.md');
    expect(beside.status).to.equal(404);
    expect((await beside.json()).message).to.equal('No such endpoint: GET /vaultx/page/top.md');
    // git's smart HTTP answers its own refusal (no JSON), not the API's.
    expect((await server.api('/vault.git/info/refs?service=git-upload-pack')).headers.get('content-type')).to.not.contain('json');
  });
});
