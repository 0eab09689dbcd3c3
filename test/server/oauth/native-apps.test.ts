import { expect } from 'chai';
import { startTestServer, type TestServer } from '../../helpers/test-server.js';
import { Browser, PASSWORD, authorizeUrl, connectApp, listTools, newClientId, pkce, readForm, userWithPassword } from './flow.js';

const CURSOR = 'cursor://anysphere.cursor-mcp/oauth/callback';
const CURSOR_URIS = [CURSOR, 'https://cursor.com/oauth/callback', 'http://127.0.0.1:5173/callback'];

/** RFC 8252: native apps come back through a private-use scheme or a loopback port. */
describe('OAuth for native apps (private-use schemes and loopback redirects)', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
    await userWithPassword(server);
  });
  after(() => server.stop());

  it("registers Cursor's three redirect URIs and completes the flow through cursor://", async () => {
    const clientId = await newClientId(server, { client_name: 'Cursor', redirect_uris: CURSOR_URIS });
    const app = await connectApp(server, { clientId, redirectUri: CURSOR });
    expect(app.back.href.startsWith(`${CURSOR}?code=`), app.back.href).to.equal(true);
    expect(app.back.searchParams.get('iss')).to.equal(server.url);
    expect((await listTools(server, app.access_token)).status).to.equal(200);
  });

  const others: [string, string][] = [
    ['VS Code', 'vscode://vscode.github-authentication/did-authenticate'],
    ['a reverse-DNS app', 'com.example.app:/oauth2redirect'],
    ['an IPv6 loopback port', 'http://[::1]:33418/'],
    ['localhost', 'http://localhost:6274/oauth/callback'],
  ];
  for (const [what, uri] of others) {
    it(`registers and completes the flow for ${what} (${uri})`, async () => {
      const clientId = await newClientId(server, { redirect_uris: [uri] });
      const app = await connectApp(server, { clientId, redirectUri: uri });
      expect(app.back.href.startsWith(`${uri}?code=`), app.back.href).to.equal(true);
      expect((await listTools(server, app.access_token)).status).to.equal(200);
    });
  }

  it('names the app a custom-scheme redirect opens, in full and escaped, before sign-in and on the consent page', async () => {
    const uri = 'cursor://anysphere.cursor-mcp/oauth/callback?x=<b>';
    const clientId = await newClientId(server, { client_name: 'Cursor', redirect_uris: [uri] });
    const browser = new Browser();
    const start = await browser.get(authorizeUrl(server, { client_id: clientId, redirect_uri: uri, code_challenge: pkce().challenge }));
    const signIn = await start.text();
    expect(signIn).to.include('Cursor (opening the app at cursor://anysphere.cursor-mcp/oauth/callback?x=&lt;b&gt;)');
    const form = readForm(signIn);
    const consent = await (await browser.post(form.action, [...form.hidden, ['username', 'ann'], ['password', PASSWORD]])).text();
    expect(consent).to.include(
      'After you approve, this will open the app at <strong><code>cursor://anysphere.cursor-mcp/oauth/callback?x=&lt;b&gt;</code></strong>',
    );
    expect(consent).to.not.include('<b>');
  });
});
