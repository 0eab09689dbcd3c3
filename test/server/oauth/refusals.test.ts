import { expect } from 'chai';
import { startTestServer, type TestServer } from '../../helpers/test-server.js';
import { LIST_TOOLS, rpc } from '../mcp/mcp-client.js';
import {
  REDIRECT,
  approveInBrowser,
  authorizeUrl,
  connectApp,
  listTools,
  newClientId,
  pkce,
  refusalPage,
  registerClient,
  tokenRequest,
  userWithPassword,
} from './flow.js';

async function oauthError(res: Response): Promise<string> {
  expect(res.status).to.equal(400);
  return (await res.json()).error;
}

describe('OAuth refusals', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
    await userWithPassword(server);
  });
  after(() => server.stop());

  it('refuses a wrong code verifier with invalid_grant', async () => {
    const clientId = await newClientId(server);
    const { challenge } = pkce();
    const back = await approveInBrowser(authorizeUrl(server, { client_id: clientId, code_challenge: challenge }));
    const res = await tokenRequest(server, {
      grant_type: 'authorization_code',
      client_id: clientId,
      code: back.searchParams.get('code')!,
      code_verifier: pkce().verifier,
    });
    expect(await oauthError(res)).to.equal('invalid_grant');
  });

  it('refuses a reused code and revokes the tokens it produced', async () => {
    const app = await connectApp(server);
    expect((await listTools(server, app.access_token)).status).to.equal(200);
    const again = await tokenRequest(server, {
      grant_type: 'authorization_code',
      client_id: app.clientId,
      code: app.code,
      code_verifier: app.verifier,
    });
    expect(await oauthError(again)).to.equal('invalid_grant');
    expect((await listTools(server, app.access_token)).status).to.equal(401);
    const refresh = await tokenRequest(server, { grant_type: 'refresh_token', client_id: app.clientId, refresh_token: app.refresh_token });
    expect(await oauthError(refresh)).to.equal('invalid_grant');
  });

  it('rotates refresh tokens, and a replayed one revokes the whole family', async () => {
    const app = await connectApp(server);
    const first = await tokenRequest(server, { grant_type: 'refresh_token', client_id: app.clientId, refresh_token: app.refresh_token });
    expect(first.status).to.equal(200);
    const rotated = await first.json();
    expect(rotated.refresh_token).to.not.equal(app.refresh_token);
    expect((await listTools(server, rotated.access_token)).status).to.equal(200);
    const replay = await tokenRequest(server, { grant_type: 'refresh_token', client_id: app.clientId, refresh_token: app.refresh_token });
    expect(await oauthError(replay)).to.equal('invalid_grant');
    expect((await listTools(server, rotated.access_token)).status).to.equal(401);
    const next = await tokenRequest(server, { grant_type: 'refresh_token', client_id: app.clientId, refresh_token: rotated.refresh_token });
    expect(await oauthError(next)).to.equal('invalid_grant');
  });

  it('refuses a foreign resource with invalid_target, at authorize (on a page) and at the token endpoint', async () => {
    const clientId = await newClientId(server);
    const { challenge, verifier } = pkce();
    const refused = await fetch(
      authorizeUrl(server, { client_id: clientId, code_challenge: challenge, resource: 'https://other.example/mcp' }),
      { redirect: 'manual' },
    );
    expect(await refusalPage(refused)).to.equal('invalid_target');
    const ok = await approveInBrowser(authorizeUrl(server, { client_id: clientId, code_challenge: challenge }));
    const res = await tokenRequest(server, {
      grant_type: 'authorization_code',
      client_id: clientId,
      code: ok.searchParams.get('code')!,
      code_verifier: verifier,
      resource: 'https://other.example/mcp',
    });
    expect(await oauthError(res)).to.equal('invalid_target');
  });

  it('defaults a missing resource to the MCP endpoint: the token works there', async () => {
    const app = await connectApp(server);
    expect((await listTools(server, app.access_token)).status).to.equal(200);
  });

  // The endpoint's other refusals, and that none of them redirects: test/security/oauth-redirect.test.ts.

  // Which redirect URIs registration refuses: test/security/oauth-redirect.test.ts.
  it('registers every client as a public client', async () => {
    const res = await registerClient(server, {
      redirect_uris: ['https://app.example/cb', 'http://localhost:3000/cb'],
      token_endpoint_auth_method: 'client_secret_post',
    });
    expect(res.status).to.equal(201);
    const client = await res.json();
    expect(client.token_endpoint_auth_method).to.equal('none');
    expect(client).to.not.have.property('client_secret');
  });

  it('refuses OAuth tokens on REST (they are for MCP only) and in ?token=', async () => {
    const app = await connectApp(server);
    const rest = await server.api('/vault/pages', { key: app.access_token });
    expect(rest.status).to.equal(401);
    expect(await rest.json())
      .to.include({ code: 'UNAUTHENTICATED' })
      .and.to.have.property('message')
      .that.matches(/MCP only/);
    const query = await rpc(server.url, LIST_TOOLS, {}, `/mcp?token=${app.access_token}`);
    expect(query.status).to.equal(401);
  });

  it('stops an access token revoked at /oauth/revoke, and a refresh token revokes its grant', async () => {
    const app = await connectApp(server);
    const revoke = (token: string) =>
      fetch(`${server.url}/oauth/revoke`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ client_id: app.clientId, token }),
      });
    expect((await revoke(app.access_token)).status).to.equal(200);
    expect((await listTools(server, app.access_token)).status).to.equal(401);
    expect((await revoke(app.refresh_token)).status).to.equal(200);
    const refresh = await tokenRequest(server, { grant_type: 'refresh_token', client_id: app.clientId, refresh_token: app.refresh_token });
    expect(await oauthError(refresh)).to.equal('invalid_grant');
  });

  it('binds a code to its client', async () => {
    const app = await connectApp(server);
    const otherClient = await newClientId(server, { client_name: 'Other' });
    const res = await tokenRequest(server, {
      grant_type: 'authorization_code',
      client_id: otherClient,
      code: app.code,
      code_verifier: app.verifier,
      redirect_uri: REDIRECT,
    });
    expect(await oauthError(res)).to.equal('invalid_grant');
  });
});
