import { expect } from 'chai';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { UnauthorizedError, type OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import { OAuthGrants } from '../../../server/oauth/grants-store.js';
import { startTestServer, type TestServer } from '../../helpers/test-server.js';
import { REDIRECT, approveInBrowser, userWithPassword } from './flow.js';

/** What an MCP host keeps between runs, in memory; the "browser" is ours. */
class MemoryProvider implements OAuthClientProvider {
  info?: OAuthClientInformationMixed;
  saved?: OAuthTokens;
  verifier = '';
  authorizationUrl?: URL;
  readonly redirectUrl = REDIRECT;
  readonly clientMetadata: OAuthClientMetadata = {
    client_name: 'SDK Assistant',
    redirect_uris: [REDIRECT],
    token_endpoint_auth_method: 'none',
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
  };
  state() {
    return 'sdk-state';
  }
  clientInformation() {
    return this.info;
  }
  saveClientInformation(info: OAuthClientInformationMixed) {
    this.info = info;
  }
  tokens() {
    return this.saved;
  }
  saveTokens(tokens: OAuthTokens) {
    this.saved = tokens;
  }
  redirectToAuthorization(url: URL) {
    this.authorizationUrl = url;
  }
  saveCodeVerifier(verifier: string) {
    this.verifier = verifier;
  }
  codeVerifier() {
    return this.verifier;
  }
}

async function connect(server: TestServer, provider: MemoryProvider): Promise<Client> {
  const client = new Client({ name: 'sdk-oauth-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), { authProvider: provider }));
  return client;
}

describe('OAuth with the MCP SDK client', () => {
  let server: TestServer;
  afterEach(() => server?.stop());

  it('goes 401 → metadata → registration → PKCE → consent → token → tools, and is refused once revoked', async () => {
    server = await startTestServer();
    await userWithPassword(server);
    const provider = new MemoryProvider();
    const first = new Client({ name: 'sdk-oauth-test', version: '1.0.0' });
    const transport = new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), { authProvider: provider });
    let error: unknown;
    await first.connect(transport).catch((err: unknown) => (error = err));
    expect(error).to.be.instanceOf(UnauthorizedError);

    const url = provider.authorizationUrl!;
    expect(url.origin + url.pathname).to.equal(`${server.url}/oauth/authorize`);
    expect(url.searchParams.get('code_challenge_method')).to.equal('S256');
    expect(url.searchParams.get('resource')).to.equal(`${server.url}/mcp`);
    const back = await approveInBrowser(url);
    expect(back.searchParams.get('state')).to.equal('sdk-state');
    expect(back.searchParams.get('iss')).to.equal(server.url);
    await transport.finishAuth(back.searchParams.get('code')!);
    expect(provider.saved?.access_token).to.match(/^qat_/);
    expect(provider.saved?.refresh_token).to.match(/^qrt_/);

    const client = await connect(server, provider);
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).to.include('write_page');
    const written = await client.callTool({ name: 'write_page', arguments: { path: 'from-sdk.md', content: '# From the SDK\n' } });
    expect(written.isError).to.not.equal(true);
    const log = await server.services.vaults.get('ann');
    expect((await log.pages.read('from-sdk.md')).content).to.equal('# From the SDK\n');

    // The account area's handle: a grants store over the same data folder.
    const grants = new OAuthGrants(server.services.store);
    const [grant] = await grants.listForUser('ann');
    expect(grant).to.include({ client_name: 'SDK Assistant', user: 'ann' });
    expect(grant.scopes).to.deep.equal(['mcp:read', 'mcp:capture', 'mcp:write']);
    expect(await grants.revokeGrant('ann', grant.id)).to.equal(true);
    let refused: unknown;
    await client.listTools().catch((err: unknown) => (refused = err));
    expect(refused, 'revoked grant still works').to.be.instanceOf(Error);
    await client.close().catch(() => undefined);
  });
});
