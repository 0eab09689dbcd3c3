import { expect } from 'chai';
import { startTestServer, type TestServer } from '../../helpers/test-server.js';
import { authorizeUrl, newClientId, pkce } from './flow.js';

async function json(server: TestServer, path: string) {
  const res = await fetch(`${server.url}${path}`);
  expect(res.status, path).to.equal(200);
  return res.json();
}

describe('OAuth metadata and registration', () => {
  let server: TestServer;
  afterEach(() => server?.stop());

  it('publishes one issuer string, without a trailing slash, and the endpoints at their exact paths', async () => {
    server = await startTestServer();
    const as = await json(server, '/.well-known/oauth-authorization-server');
    expect(as).to.include({
      issuer: server.url,
      authorization_endpoint: `${server.url}/oauth/authorize`,
      token_endpoint: `${server.url}/oauth/token`,
      registration_endpoint: `${server.url}/oauth/register`,
      revocation_endpoint: `${server.url}/oauth/revoke`,
    });
    expect(as.code_challenge_methods_supported).to.deep.equal(['S256']);
    expect(as.scopes_supported).to.have.members(['mcp:read', 'mcp:capture', 'mcp:write', 'mcp', 'offline_access']);
    const mcp = await json(server, '/.well-known/oauth-protected-resource/mcp');
    expect(mcp).to.deep.include({ resource: `${server.url}/mcp`, authorization_servers: [server.url] });
    const root = await json(server, '/.well-known/oauth-protected-resource');
    expect(root).to.deep.include({ resource: server.url, authorization_servers: [server.url] });
  });

  it('puts the browser endpoint under QUIRE_AUTH_URL, with Secure cookies when it is https', async () => {
    server = await startTestServer({}, (c) => ({ ...c, authUrl: 'https://auth.example' }));
    const as = await json(server, '/.well-known/oauth-authorization-server');
    expect(as.authorization_endpoint).to.equal('https://auth.example/oauth/authorize');
    expect(as.issuer).to.equal(server.url);
    const clientId = await newClientId(server);
    const res = await fetch(authorizeUrl(server, { client_id: clientId, code_challenge: pkce().challenge }), { redirect: 'manual' });
    expect(res.headers.getSetCookie()[0]).to.match(/; Secure/);
    expect(await res.text()).to.include('action="https://auth.example/oauth/authorize/login"');
  });
});
