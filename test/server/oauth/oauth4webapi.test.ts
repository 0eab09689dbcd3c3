import { expect } from 'chai';
import * as oauth from 'oauth4webapi';
import { startTestServer, type TestServer } from '../../helpers/test-server.js';
import { call, mcpClient } from '../mcp/mcp-client.js';
import { REDIRECT, approveInBrowser, userWithPassword } from './flow.js';

const insecure = { [oauth.allowInsecureRequests]: true };

describe('OAuth with oauth4webapi (a second standards client)', () => {
  let server: TestServer;
  afterEach(() => server?.stop());

  it('discovers, registers, authorizes with state and iss checked, exchanges, refreshes and calls tools', async () => {
    server = await startTestServer();
    await userWithPassword(server);
    const resource = new URL(`${server.url}/mcp`);
    const rs = await oauth.processResourceDiscoveryResponse(resource, await oauth.resourceDiscoveryRequest(resource, insecure));
    expect(rs.authorization_servers).to.deep.equal([server.url]);
    const issuer = new URL(rs.authorization_servers![0]);
    const as = await oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, { algorithm: 'oauth2', ...insecure }));
    // Byte-identical issuer: no trailing slash anywhere.
    expect(as.issuer).to.equal(server.url);
    expect(as.authorization_response_iss_parameter_supported).to.equal(true);
    expect(as.code_challenge_methods_supported).to.deep.equal(['S256']);

    const client = await oauth.processDynamicClientRegistrationResponse(
      await oauth.dynamicClientRegistrationRequest(
        as,
        {
          client_name: 'Webapi Client',
          redirect_uris: [REDIRECT],
          token_endpoint_auth_method: 'none',
        },
        insecure,
      ),
    );
    const verifier = oauth.generateRandomCodeVerifier();
    const state = oauth.generateRandomState();
    const url = new URL(as.authorization_endpoint!);
    for (const [k, v] of Object.entries({
      client_id: client.client_id,
      redirect_uri: REDIRECT,
      response_type: 'code',
      scope: 'mcp:read mcp:capture',
      state,
      code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      resource: resource.href,
    }))
      url.searchParams.set(k, v);
    const back = await approveInBrowser(url);

    expect(() => oauth.validateAuthResponse(as, client, back, 'another-state')).to.throw();
    const forged = new URL(back);
    forged.searchParams.set('iss', `${server.url}/`);
    expect(() => oauth.validateAuthResponse(as, client, forged, state)).to.throw();
    const params = oauth.validateAuthResponse(as, client, back, state);

    const tokens = await oauth.processAuthorizationCodeResponse(
      as,
      client,
      await oauth.authorizationCodeGrantRequest(as, client, oauth.None(), params, REDIRECT, verifier, {
        additionalParameters: { resource: resource.href },
        ...insecure,
      }),
    );
    expect(tokens.scope).to.equal('mcp:read mcp:capture');
    expect(tokens.token_type).to.equal('bearer');
    const refreshed = await oauth.processRefreshTokenResponse(
      as,
      client,
      await oauth.refreshTokenGrantRequest(as, client, oauth.None(), tokens.refresh_token!, insecure),
    );
    expect(refreshed.refresh_token).to.not.equal(tokens.refresh_token);

    const mcp = await mcpClient(server.url, { bearer: refreshed.access_token });
    expect((await call(mcp, 'capture', { title: 'Via webapi', content: 'x' })).isError).to.not.equal(true);
    // Beyond the grant: the step-up challenge (test/server/oauth/step-up.test.ts).
    const write = await call(mcp, 'write_page', { path: 'x.md', content: 'x' }).catch((err: unknown) => err);
    expect((write as Error).message).to.include('"required_scope":"mcp:write"');
    await mcp.close();
  });
});
