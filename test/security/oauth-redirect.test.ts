import { expect } from 'chai';
import { startTestServer, type TestServer } from '../helpers/test-server.js';
import { approveInBrowser, authorizeUrl, newClientId, pkce, refusalPage, registerClient, userWithPassword } from '../server/oauth/flow.js';

const EVIL = 'https://evil.example/cb';

/**
 * RFC 9700 §4.11.2: anyone can register a client whose redirect URI is a phishing page, then
 * send a victim a deliberately broken authorization link. The server must not forward the
 * browser there before the user has seen, on the consent page, who is asking.
 */
describe('attack: the authorization endpoint as an open redirector', function () {
  this.timeout(30_000);
  let server: TestServer;
  let evil: string;

  before(async () => {
    server = await startTestServer();
    await userWithPassword(server);
    evil = await newClientId(server, { client_name: 'Totally Legit', redirect_uris: [EVIL] });
  });
  after(() => server.stop());

  const link = (params: Record<string, string | undefined>) =>
    authorizeUrl(server, { client_id: evil, redirect_uri: EVIL, code_challenge: pkce().challenge, ...params });
  const open = (url: URL) => fetch(url, { redirect: 'manual' });

  const refusals: [string, Record<string, string | undefined>, string][] = [
    ['a malformed scope', { scope: 'mcp:read "admin"' }, 'invalid_scope'],
    ['no PKCE challenge', { code_challenge: undefined }, 'invalid_request'],
    ['plain PKCE', { code_challenge_method: 'plain' }, 'invalid_request'],
    ['an unsupported response type', { response_type: 'token' }, 'unsupported_response_type'],
    ['a missing response type', { response_type: undefined }, 'unsupported_response_type'],
    ['another server as resource', { resource: 'https://other.example/mcp' }, 'invalid_target'],
    ['a resource that is no URL', { resource: 'not a url' }, 'invalid_request'],
    ['an unknown client', { client_id: 'no-such-client' }, 'invalid_client'],
    ['a redirect URI the client never registered', { redirect_uri: 'https://attacker.example/cb' }, 'invalid_request'],
  ];
  for (const [what, params, code] of refusals) {
    it(`shows ${what} as a ${code} page and does not redirect`, async () => {
      const res = await open(link(params));
      expect(await refusalPage(res)).to.equal(code);
    });
  }

  it('uses the only registered redirect URI when none is given, and still refuses on a page', async () => {
    expect(await refusalPage(await open(link({ redirect_uri: undefined, scope: '"admin"' })))).to.equal('invalid_scope');
  });

  it('refuses a parameter given twice on a page', async () => {
    const url = link({});
    url.searchParams.append('state', 'again');
    expect(await refusalPage(await open(url))).to.equal('invalid_request');
  });

  it('refuses the same way when the request is POSTed', async () => {
    const url = link({ scope: '"admin"' });
    const res = await fetch(`${url.origin}${url.pathname}`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: url.searchParams.toString(),
    });
    expect(await refusalPage(res)).to.equal('invalid_scope');
  });

  it('answers a valid request with the sign-in page, naming where the user would return', async () => {
    const res = await open(link({}));
    expect(res.status).to.equal(200);
    expect(res.headers.has('location')).to.equal(false);
    expect(await res.text()).to.include('Totally Legit (returning to evil.example)');
  });

  it('redirects a Deny with access_denied: by then the user has seen the consent page naming the host', async () => {
    const back = await approveInBrowser(link({}), { decision: 'deny' });
    expect(back.origin + back.pathname).to.equal(EVIL);
    expect(back.searchParams.get('error')).to.equal('access_denied');
    expect(back.searchParams.get('state')).to.equal('state-1');
    expect(back.searchParams.get('iss')).to.equal(server.url);
  });
});

/**
 * Registration is open to anyone, so a redirect URI is where a stolen code would go: only
 * https, loopback http and native apps' private-use schemes, each an exact string.
 */
describe('attack: registering a redirect URI that runs code, reads files or leaves the machine', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(() => server.stop());

  async function refusal(uris: string[]): Promise<{ error: string; error_description: string }> {
    const res = await registerClient(server, { redirect_uris: uris });
    expect(res.status, uris.join(' ')).to.equal(400);
    return res.json();
  }

  const bad = [
    'javascript:alert(1)',
    'data:text/html,x',
    'file:///etc/passwd',
    'vbscript:msgbox(1)',
    'about:blank',
    'blob:https://a.example/0b2c',
    'ftp://a.example/cb',
    'wss://a.example/cb',
    'http://evil.example/cb',
    'https://a.example/cb#frag',
    'https://*.example/cb',
    'https://user:pw@a.example/cb',
    'cb',
    '/oauth/callback',
  ];
  for (const uri of bad) {
    it(`refuses ${uri} with invalid_redirect_uri, naming it`, async () => {
      const body = await refusal([uri]);
      expect(body.error).to.equal('invalid_redirect_uri');
      expect(body.error_description).to.include(`${JSON.stringify(uri)} is not allowed: `);
    });
  }

  it('refuses a registration where one URI of several is bad, naming that one', async () => {
    const body = await refusal(['cursor://anysphere.cursor-mcp/oauth/callback', 'https://a.example/cb', 'javascript:alert(1)']);
    expect(body.error).to.equal('invalid_redirect_uri');
    expect(body.error_description).to.match(/^"javascript:alert\(1\)" is not allowed: /);
    expect(body.error_description).to.not.include('cursor://');
  });
});
