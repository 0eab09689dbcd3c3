import { expect } from 'chai';
import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { startTestServer, type TestServer } from '../../helpers/test-server.js';
import { requestAsHost } from '../../helpers/request-as-host.js';
import { LIST_TOOLS, rpc, testClient } from '../mcp/mcp-client.js';
import { approveInBrowser, authorizeUrl, newClientId, pkce, refusalPage, tokenRequest, userWithPassword } from './flow.js';
import { MemoryProvider } from './memory-provider.js';

const PRM = '/.well-known/oauth-protected-resource';

/** tools/list on /mcp as a client that reached the server by `host`. */
function listToolsAs(server: TestServer, host: string, headers: Record<string, string> = {}): Promise<Response> {
  const body = JSON.stringify(LIST_TOOLS);
  return requestAsHost(`${server.url}/mcp`, host, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json', ...headers },
    body,
  });
}

/** A GET to the server with the Host header a client on another spelling would send. */
async function metadataAs(server: TestServer, host: string, path = `${PRM}/mcp`) {
  const res = await requestAsHost(`${server.url}${path}`, host);
  expect(res.status).to.equal(200);
  return res.json();
}

describe('OAuth: loopback spellings of a loopback base URL', function () {
  this.timeout(20_000);
  let server: TestServer;
  let port: string;
  let localhost: string;

  before(async () => {
    server = await startTestServer();
    await userWithPassword(server);
    port = new URL(server.url).port;
    localhost = `http://localhost:${port}`;
  });
  after(() => server.stop());

  it('connects the SDK client given http://localhost:PORT/mcp while the base URL is http://127.0.0.1:PORT', async () => {
    expect(server.url).to.equal(`http://127.0.0.1:${port}`);
    const provider = new MemoryProvider();
    const url = new URL(`${localhost}/mcp`);
    const first = new StreamableHTTPClientTransport(url, { authProvider: provider });
    let error: unknown;
    await testClient('localhost-test')
      .connect(first)
      .catch((err: unknown) => (error = err));
    expect(error).to.be.instanceOf(UnauthorizedError);
    expect(provider.authorizationUrl!.searchParams.get('resource')).to.equal(`${localhost}/mcp`);
    const back = await approveInBrowser(provider.authorizationUrl!);
    expect(back.searchParams.get('iss')).to.equal(server.url);
    await first.finishAuth(back.searchParams.get('code')!);

    const client = testClient('localhost-test');
    await client.connect(new StreamableHTTPClientTransport(url, { authProvider: provider }));
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).to.include('read_page');
    await client.close();
  });

  it('names the resource as the request spelled the host, and keeps the configured issuer', async () => {
    for (const host of [`localhost:${port}`, `127.0.0.1:${port}`, `[::1]:${port}`]) {
      const mcp = await metadataAs(server, host);
      expect(mcp).to.deep.include({ resource: `http://${host}/mcp`, authorization_servers: [server.url] });
      expect((await metadataAs(server, host, PRM)).resource).to.equal(`http://${host}`);
    }
    const issuer = (await metadataAs(server, `localhost:${port}`, '/.well-known/oauth-authorization-server')).issuer;
    expect(issuer).to.equal(server.url);
  });

  it('names the configured resource for a foreign host or another port', async () => {
    for (const host of ['evil.example', `evil.example:${port}`, 'localhost:1', `localhost:${port}@evil.example`]) {
      expect((await metadataAs(server, host)).resource, host).to.equal(`${server.url}/mcp`);
    }
  });

  it('points the 401 challenge at the metadata of the spelling used, with or without a bad token', async () => {
    for (const headers of [{}, { authorization: 'Bearer qat_not-a-token' }]) {
      const res = await listToolsAs(server, `localhost:${port}`, headers);
      expect(res.status).to.equal(401);
      expect(res.headers.get('www-authenticate')).to.include(`resource_metadata="${localhost}${PRM}/mcp"`);
    }
    const plain = await rpc(server.url, LIST_TOOLS);
    expect(plain.headers.get('www-authenticate')).to.include(`resource_metadata="${server.url}${PRM}/mcp"`);
  });

  it('binds a token asked for as [::1] and exchanged as localhost; it works on /mcp in every spelling', async () => {
    const clientId = await newClientId(server);
    const { challenge, verifier } = pkce();
    const back = await approveInBrowser(
      authorizeUrl(server, { client_id: clientId, code_challenge: challenge, resource: `http://[::1]:${port}/mcp` }),
    );
    const res = await tokenRequest(server, {
      grant_type: 'authorization_code',
      client_id: clientId,
      code: back.searchParams.get('code')!,
      code_verifier: verifier,
      resource: `${localhost}/mcp`,
    });
    expect(res.status).to.equal(200);
    const { access_token, refresh_token } = await res.json();
    for (const host of [`localhost:${port}`, `127.0.0.1:${port}`, `[::1]:${port}`]) {
      const listed = await listToolsAs(server, host, { authorization: `Bearer ${access_token}` });
      expect(listed.status, host).to.equal(200);
    }
    const refreshed = await tokenRequest(server, { grant_type: 'refresh_token', client_id: clientId, refresh_token, resource: server.url });
    expect(refreshed.status).to.equal(200);
  });

  it('refuses another port, scheme or host with invalid_target', async () => {
    const clientId = await newClientId(server);
    for (const resource of ['http://localhost:1/mcp', `https://localhost:${port}/mcp`, `http://localhost.evil.example:${port}/mcp`]) {
      const res = await fetch(authorizeUrl(server, { client_id: clientId, code_challenge: pkce().challenge, resource }), {
        redirect: 'manual',
      });
      expect(await refusalPage(res), resource).to.equal('invalid_target');
    }
  });
});

describe('OAuth: a non-loopback base URL stays exact', function () {
  this.timeout(20_000);
  const BASE = 'https://vault.example.com';
  let server: TestServer;

  before(async () => {
    server = await startTestServer({ QUIRE_BASE_URL: BASE });
  });
  after(() => server.stop());

  it('names the configured resource whatever the Host header says', async () => {
    for (const host of ['vault.example.com', 'localhost', 'other.example.com']) {
      expect((await metadataAs(server, host)).resource, host).to.equal(`${BASE}/mcp`);
    }
    const res = await listToolsAs(server, 'vault.example.com');
    expect(res.headers.get('www-authenticate')).to.include(`resource_metadata="${BASE}${PRM}/mcp"`);
  });

  it('accepts its own resource and refuses another host, a loopback one included, with invalid_target', async () => {
    const clientId = await newClientId(server);
    const open = (resource: string) =>
      fetch(authorizeUrl(server, { client_id: clientId, code_challenge: pkce().challenge, resource }), { redirect: 'manual' });
    expect((await open(`${BASE}/mcp`)).status).to.equal(200);
    for (const resource of ['https://other.example.com/mcp', 'https://localhost/mcp', 'http://vault.example.com/mcp']) {
      expect(await refusalPage(await open(resource)), resource).to.equal('invalid_target');
    }
  });
});
