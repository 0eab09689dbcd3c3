import { expect } from 'chai';
import { startTestServer, type TestServer } from '../../helpers/test-server.js';
import { Browser, PASSWORD, authorizeUrl, connectApp, newClientId, pkce, readForm, tokenRequest, userWithPassword } from './flow.js';

/** RFC 6749 §3.3: the server may ignore scopes it does not know, and says what it granted. */
describe('OAuth scopes', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
    await userWithPassword(server);
  });
  after(() => server.stop());

  it('ignores unknown scopes and offline_access, grants the known ones, and still issues a refresh token', async () => {
    const app = await connectApp(server, { scope: 'mcp:read offline_access openid profile email' });
    expect(app.scope).to.equal('mcp:read');
    expect(app.refresh_token).to.match(/^qrt_/);
    const refreshed = await tokenRequest(server, {
      grant_type: 'refresh_token',
      client_id: app.clientId,
      refresh_token: app.refresh_token,
      scope: 'mcp:read offline_access',
    });
    expect(refreshed.status).to.equal(200);
    expect((await refreshed.json()).scope).to.equal('mcp:read');
  });

  it('offers the default scopes, as for no scope at all, when none of the requested ones is known', async () => {
    const offered = async (scope: string | undefined) => {
      const browser = new Browser();
      const start = await browser.get(
        authorizeUrl(server, { client_id: await newClientId(server), code_challenge: pkce().challenge, scope }),
      );
      const form = readForm(await start.text());
      const consent = await browser.post(form.action, [...form.hidden, ['username', 'ann'], ['password', PASSWORD]]);
      return readForm(await consent.text()).scopes;
    };
    expect(await offered('openid offline_access')).to.deep.equal(['mcp:read', 'mcp:capture', 'mcp:write']);
    expect(await offered(undefined)).to.deep.equal(['mcp:read', 'mcp:capture', 'mcp:write']);
    expect((await connectApp(server, { scope: 'openid profile' })).scope).to.equal('mcp:read mcp:capture mcp:write');
  });

  it('lists offline_access in the authorization-server metadata', async () => {
    const as = await (await fetch(`${server.url}/.well-known/oauth-authorization-server`)).json();
    expect(as.scopes_supported).to.include('offline_access');
  });
});
