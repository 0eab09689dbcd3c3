import { expect } from 'chai';
import { startTestServer, type TestServer } from '../../helpers/test-server.js';
import { Browser, PASSWORD, approveInBrowser, authorizeUrl, connectApp, newClientId, pkce, readForm, userWithPassword } from './flow.js';

describe('OAuth sign-in and consent pages', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
    await userWithPassword(server);
  });
  after(() => server.stop());

  async function start(clientName = 'Test App', scope?: string) {
    const clientId = await newClientId(server, { client_name: clientName });
    const browser = new Browser();
    const res = await browser.get(authorizeUrl(server, { client_id: clientId, code_challenge: pkce().challenge, scope }));
    return { browser, res, page: await res.text() };
  }

  it('cannot be framed, is not cached, sets an HttpOnly SameSite=Strict CSRF cookie, and escapes the client name', async () => {
    const { res, page } = await start('<script>alert("x")</script> & Co');
    expect(res.headers.get('x-frame-options')).to.equal('DENY');
    expect(res.headers.get('content-security-policy')).to.match(/frame-ancestors 'none'/);
    expect(res.headers.get('cache-control')).to.equal('no-store');
    const [cookie] = res.headers.getSetCookie();
    expect(cookie)
      .to.match(/HttpOnly/)
      .and.to.match(/SameSite=Strict/i);
    expect(cookie).to.not.match(/Secure/); // plain http in tests; Secure is set when the auth URL is https
    expect(page).to.not.include('<script>alert');
    expect(page).to.include('&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; Co');
    expect(page).to.include('127.0.0.1:9');
  });

  it('shows each requested scope in plain words after sign-in, naming client and redirect host', async () => {
    const { browser, page } = await start('Notes Bot', 'mcp:read mcp:write');
    const form = readForm(page);
    const consent = await browser.post(form.action, [...form.hidden, ['username', 'ann'], ['password', PASSWORD]]);
    const html = await consent.text();
    expect(html).to.include('Allow Notes Bot to use your vault?');
    expect(html).to.include('Read your pages, tags, links and search results');
    expect(html).to.include('Create, change, move and delete pages');
    expect(html).to.not.include('Add new notes under capture/');
    expect(html).to.include('127.0.0.1:9');
    expect(readForm(html).scopes).to.deep.equal(['mcp:read', 'mcp:write']);
  });

  it('refuses a wrong password without saying which part was wrong', async () => {
    const { browser, page } = await start();
    const form = readForm(page);
    for (const [user, password] of [
      ['ann', 'wrong'],
      ['nobody', PASSWORD],
    ]) {
      const res = await browser.post(form.action, [...form.hidden, ['username', user], ['password', password]]);
      expect(res.status).to.equal(401);
      expect(await res.text()).to.include('Wrong username or password.');
    }
  });

  it('refuses a cross-site form post (no CSRF cookie, or a wrong token) with 403', async () => {
    const { browser, page } = await start();
    const form = readForm(page);
    const fields: [string, string][] = [...form.hidden, ['username', 'ann'], ['password', PASSWORD]];
    expect((await browser.post(form.action, fields, false)).status).to.equal(403);
    const wrong = fields.map(([k, v]) => [k, k === 'csrf' ? 'forged' : v] as [string, string]);
    expect((await browser.post(form.action, wrong)).status).to.equal(403);
    expect((await browser.post(form.action, fields)).status).to.equal(200);
  });

  it('sends the user back with access_denied on deny, and grants only the scopes left ticked', async () => {
    const clientId = await newClientId(server);
    const denied = await approveInBrowser(authorizeUrl(server, { client_id: clientId, code_challenge: pkce().challenge }), {
      decision: 'deny',
    });
    expect(denied.searchParams.get('error')).to.equal('access_denied');
    expect(denied.searchParams.get('state')).to.equal('state-1');
    expect(denied.searchParams.get('iss')).to.equal(server.url);
    const app = await connectApp(server, { approval: { untick: ['mcp:write', 'mcp:capture'] } });
    expect(app.scope).to.equal('mcp:read');
  });

  it('uses a sign-in request once: the consent form cannot be replayed', async () => {
    const { browser, page } = await start();
    const login = readForm(page);
    const consent = readForm(
      await (await browser.post(login.action, [...login.hidden, ['username', 'ann'], ['password', PASSWORD]])).text(),
    );
    const fields: [string, string][] = [...consent.hidden, ['scope', 'mcp:read'], ['decision', 'approve']];
    expect((await browser.post(consent.action, fields)).status).to.equal(302);
    expect((await browser.post(consent.action, fields)).status).to.equal(400);
  });
});
