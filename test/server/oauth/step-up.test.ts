import { expect } from 'chai';
import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import { startTestServer, type TestServer } from '../../helpers/test-server.js';
import { rpc, testClient } from '../mcp/mcp-client.js';
import { approveInBrowser, userWithPassword } from './flow.js';
import { MemoryProvider } from './memory-provider.js';

/**
 * A host that keeps no refresh token. SDK 1.x answers a 403 challenge by refreshing first when
 * it holds one, and a refresh cannot widen a grant (RFC 6749 §6), so it gives up with "403 after
 * trying upscoping" instead of re-authorizing (typescript-sdk#2255).
 */
class AccessTokenOnly extends MemoryProvider {
  saveTokens(tokens: OAuthTokens) {
    super.saveTokens({ ...tokens, refresh_token: undefined });
  }
}

const toolCall = (name: string, args: Record<string, unknown>) => ({
  jsonrpc: '2.0',
  id: 7,
  method: 'tools/call',
  params: { name, arguments: args },
});

describe('OAuth step-up: a tool beyond the grant is a 403 scope challenge', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
    await userWithPassword(server);
  });
  after(() => server.stop());

  it('read grant → write_page → 403 → the SDK client re-authorizes with mcp:write → the call succeeds', async () => {
    const provider = new AccessTokenOnly();
    const url = new URL(`${server.url}/mcp`);
    const first = new StreamableHTTPClientTransport(url, { authProvider: provider });
    const refused = await testClient('step-up')
      .connect(first)
      .catch((err: unknown) => err);
    expect(refused).to.be.instanceOf(UnauthorizedError);
    const back = await approveInBrowser(provider.authorizationUrl!, { untick: ['mcp:capture', 'mcp:write'] });
    await first.finishAuth(back.searchParams.get('code')!);
    const readToken = provider.saved!.access_token;

    const transport = new StreamableHTTPClientTransport(url, { authProvider: provider });
    const client = testClient('step-up');
    await client.connect(transport);
    // A read grant still sees write_page: without it the client could never be challenged.
    expect((await client.listTools()).tools.map((t) => t.name)).to.include.members(['write_page', 'capture', 'read_page']);

    provider.authorizationUrl = undefined;
    const args = { path: 'stepped-up.md', content: '# Stepped up\n' };
    const challenged = await client.callTool({ name: 'write_page', arguments: args }).catch((err: unknown) => err);
    expect(challenged, 'the SDK client starts a new authorization').to.be.instanceOf(UnauthorizedError);
    // What it had plus what it needs: SDK 1.x asks for the challenge's scope as it is.
    expect(provider.authorizationUrl!.searchParams.get('scope')).to.equal('mcp:read mcp:write');
    const again = await approveInBrowser(provider.authorizationUrl!);
    await transport.finishAuth(again.searchParams.get('code')!);
    expect(provider.saved!.scope).to.equal('mcp:read mcp:write');

    // The session is the app's, not the grant's: the same client goes on, on the same session.
    const sessionId = transport.sessionId;
    const written = await client.callTool({ name: 'write_page', arguments: args });
    expect(written.isError).to.not.equal(true);
    expect(transport.sessionId).to.equal(sessionId);
    expect((await (await server.services.vaults.get('ann')).pages.read('stepped-up.md')).content).to.equal('# Stepped up\n');
    expect((await client.callTool({ name: 'read_page', arguments: { path: 'stepped-up.md' } })).isError).to.not.equal(true);
    await client.close();

    // The old read token is still refused write_page.
    const res = await rpc(server.url, toolCall('write_page', args), { authorization: `Bearer ${readToken}` });
    expect(res.status).to.equal(403);
  });

  it('answers the challenge before the protocol server and before any rate limit, as a JSON-RPC error', async () => {
    const provider = new AccessTokenOnly();
    const transport = new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), { authProvider: provider });
    await testClient('step-up')
      .connect(transport)
      .catch(() => undefined);
    const back = await approveInBrowser(provider.authorizationUrl!, { untick: ['mcp:capture', 'mcp:write'] });
    await transport.finishAuth(back.searchParams.get('code')!);
    const auth = { authorization: `Bearer ${provider.saved!.access_token}` };
    const plan = server.services.config.plans.personal;
    const before = await server.services.limiter.peek('ann', 'write', plan);

    const res = await rpc(server.url, toolCall('capture', { title: 'x', content: 'y' }), auth);
    expect(res.status).to.equal(403);
    expect(res.headers.get('www-authenticate')).to.equal(
      `Bearer error="insufficient_scope", scope="mcp:read mcp:capture", ` +
        `resource_metadata="${server.url}/.well-known/oauth-protected-resource/mcp", error_description="capture needs the mcp:capture scope"`,
    );
    expect(await res.json()).to.deep.equal({
      jsonrpc: '2.0',
      id: 7,
      error: {
        code: -32003,
        message: 'capture needs the mcp:capture scope',
        data: { code: 'INSUFFICIENT_SCOPE', message: 'capture needs the mcp:capture scope', required_scope: 'mcp:capture' },
      },
    });
    expect(res.headers.get('x-ratelimit-remaining')).to.equal(null);
    expect((await server.services.limiter.peek('ann', 'write', plan)).remaining).to.equal(before.remaining);
    // Within the grant, and anything that is not a known tool's call, goes on to the protocol server.
    expect((await rpc(server.url, toolCall('read_page', { path: 'none.md' }), auth)).status).to.equal(200);
    expect((await rpc(server.url, toolCall('no_such_tool', {}), auth)).status).to.equal(200);
  });
});
