import { expect } from 'chai';
import { startTestServer, type LogLine, type TestServer } from '../../helpers/test-server.js';
import { call, mcpClient } from '../mcp/mcp-client.js';
import { Browser, readForm } from '../oauth/flow.js';

/** The request lines logged since `from`, once the responses' `close` events have run. */
async function requestLines(server: TestServer, from = 0): Promise<LogLine[]> {
  await new Promise((resolve) => setTimeout(resolve, 20));
  return server.logs.slice(from).filter((line) => line.msg === 'request');
}

describe('the request log', () => {
  let server: TestServer;
  let key: string;

  before(async () => {
    server = await startTestServer({ QUIRE_WATCH: 'false' });
    key = await server.key('alice', 'write');
    await server.api('/vault/page', { method: 'POST', key, json: { path: 'private/plans.md', content: 'x' } });
  });
  after(() => server.stop());

  it('writes one info line per request: method, route pattern, status, time, user and credential kind, and no secret', async () => {
    const from = server.logs.length;
    const res = await server.api('/vault/page/private/plans.md?token=quire_query_secret', { key });
    expect(res.status).to.equal(200);
    const lines = await requestLines(server, from);
    expect(lines).to.have.length(1);
    expect(lines[0]).to.include({
      level: 'info',
      method: 'GET',
      route: '/vault/page{/*path}',
      status: 200,
      user: 'alice',
      credential: 'key',
    });
    expect(lines[0].ms).to.be.a('number');
    const text = JSON.stringify(lines);
    expect(text).not.to.contain(key).and.not.to.contain('quire_query_secret').and.not.to.contain('plans.md');
  });

  it('names no user and no credential for an anonymous or refused request, and no route when none matched', async () => {
    const from = server.logs.length;
    expect((await server.api('/vault/pages', { key: 'quire_not_a_real_key' })).status).to.equal(401);
    expect((await fetch(`${server.url}/no/such/thing?token=quire_x`)).status).to.equal(404);
    const lines = await requestLines(server, from);
    expect(lines.map((l) => [l.status, l.route, l.user, l.credential])).to.deep.equal([
      [401, null, null, 'none'],
      [404, null, null, 'none'],
    ]);
    expect(JSON.stringify(lines)).not.to.contain('quire_not_a_real_key').and.not.to.contain('quire_x');
  });

  it('logs MCP requests made with a query token and git requests made with a key, without either', async () => {
    const from = server.logs.length;
    const client = await mcpClient(server.url, { queryToken: key });
    try {
      await call(client, 'list_pages', {});
    } finally {
      await client.close();
    }
    const basic = Buffer.from(`git:${key}`).toString('base64');
    const refs = await fetch(`${server.url}/vault.git/info/refs?service=git-upload-pack`, { headers: { authorization: `Basic ${basic}` } });
    expect(refs.status).to.equal(200);
    await refs.arrayBuffer();
    const lines = await requestLines(server, from);
    // The SDK client also tries a GET for a stream, which a stateless server refuses.
    const posts = lines.filter((l) => l.route === '/mcp' && l.method === 'POST');
    expect(posts.length).to.be.greaterThan(0);
    for (const line of posts) expect(line).to.include({ user: 'alice', credential: 'key' });
    expect(lines.find((l) => l.route === '/vault.git/info/refs')).to.include({
      method: 'GET',
      status: 200,
      user: 'alice',
      credential: 'key',
    });
    const text = JSON.stringify(lines);
    expect(text).not.to.contain(key).and.not.to.contain(basic);
  });

  it('logs account pages with the session, without the cookie or the password', async () => {
    const password = 'correct horse battery';
    await server.services.accounts.setPassword('alice', password);
    const from = server.logs.length;
    const browser = new Browser();
    const { hidden } = readForm(await (await browser.get(`${server.url}/account/signin`)).text());
    const signedIn = await browser.post(`${server.url}/account/signin`, [...hidden, ['username', 'alice'], ['password', password]]);
    const cookie = /^quire_session=([^;]+)/.exec(signedIn.headers.getSetCookie().find((c) => c.startsWith('quire_session='))!)![1];
    const page = await fetch(`${server.url}/account/`, { headers: { cookie: `quire_session=${cookie}` } });
    expect(page.status).to.equal(200);
    const lines = await requestLines(server, from);
    expect(lines.at(-1)).to.include({ method: 'GET', route: '/account/', status: 200, user: 'alice', credential: 'session' });
    expect(JSON.stringify(server.logs)).not.to.contain(cookie).and.not.to.contain(password);
  });
});

describe('QUIRE_LOG_LEVEL', () => {
  it('at warn, leaves the request lines out', async () => {
    const server = await startTestServer({ QUIRE_WATCH: 'false', QUIRE_LOG_LEVEL: 'warn' });
    try {
      const key = await server.key('bob', 'read');
      expect((await server.api('/vault/pages', { key })).status).to.equal(200);
      expect(await requestLines(server)).to.deep.equal([]);
    } finally {
      await server.stop();
    }
  });
});
