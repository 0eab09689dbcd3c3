import { expect } from 'chai';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { OAuthGrants } from '../../../server/oauth/grants-store.js';
import { startTestServer, type TestServer } from '../../helpers/test-server.js';
import { approveInBrowser, userWithPassword } from './flow.js';
import { MemoryProvider } from './memory-provider.js';
import { testClient } from '../mcp/mcp-client.js';

async function connect(server: TestServer, provider: MemoryProvider): Promise<Client> {
  const client = testClient('sdk-oauth-test');
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
    const first = testClient('sdk-oauth-test');
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
