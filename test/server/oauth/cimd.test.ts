import { expect } from 'chai';
import { UnauthorizedError, type OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import { documentFetch } from '../../../server/oauth/client-metadata-document.js';
import { OAuthGrants } from '../../../server/oauth/grants-store.js';
import { startTestServer, type TestServer } from '../../helpers/test-server.js';
import { LOOPBACK_CERT, startDocumentServer, type DocumentServer } from './document-server.js';
import { Browser, REDIRECT, approveInBrowser, authorizeUrl, connectApp, listTools, pkce, tokenRequest, userWithPassword } from './flow.js';
import { testClient } from '../mcp/mcp-client.js';

const APP = { client_name: 'Doc App', redirect_uris: [REDIRECT], token_endpoint_auth_method: 'none' };

/** An MCP host that identifies itself by the URL of its metadata document instead of registering. */
class UrlIdentifiedProvider implements OAuthClientProvider {
  info?: OAuthClientInformationMixed;
  saved?: OAuthTokens;
  verifier = '';
  authorizationUrl?: URL;
  readonly redirectUrl = REDIRECT;
  readonly clientMetadata: OAuthClientMetadata = { ...APP, grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'] };
  constructor(readonly clientMetadataUrl: string) {}
  clientInformation = () => this.info;
  saveClientInformation = (info: OAuthClientInformationMixed) => void (this.info = info);
  tokens = () => this.saved;
  saveTokens = (tokens: OAuthTokens) => void (this.saved = tokens);
  redirectToAuthorization = (url: URL) => void (this.authorizationUrl = url);
  saveCodeVerifier = (verifier: string) => void (this.verifier = verifier);
  codeVerifier = () => this.verifier;
}

/** What the token endpoint says of a client_id, before any code is looked at. */
async function tokenRefusal(server: TestServer, clientId: string): Promise<{ error: string; error_description: string }> {
  const res = await tokenRequest(server, {
    grant_type: 'authorization_code',
    client_id: clientId,
    code: 'x',
    code_verifier: pkce().verifier,
  });
  expect(res.status).to.equal(400);
  return res.json();
}

describe('OAuth clients identified by a metadata document (CIMD)', () => {
  let server: TestServer;
  let docs: DocumentServer;
  const saved = { ...documentFetch };
  before(async () => {
    documentFetch.ca = LOOPBACK_CERT;
    [server, docs] = await Promise.all([startTestServer(), startDocumentServer()]);
    await userWithPassword(server);
  });
  after(async () => {
    Object.assign(documentFetch, saved);
    await Promise.all([server.stop(), docs.close()]);
  });

  it('advertises client_id_metadata_document_supported', async () => {
    const metadata = await (await fetch(`${server.url}/.well-known/oauth-authorization-server`)).json();
    expect(metadata.client_id_metadata_document_supported).to.equal(true);
  });

  it('lets the SDK client with clientMetadataUrl connect without registering, up to tools/list, and lists it as a connected app', async () => {
    const url = docs.serveDocument('/sdk-client.json', APP, { 'cache-control': 'max-age=600' });
    const provider = new UrlIdentifiedProvider(url);
    const transport = new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), { authProvider: provider });
    const first = testClient('cimd-test');
    const error = await first.connect(transport).catch((err: unknown) => err);
    expect(error).to.be.instanceOf(UnauthorizedError);
    expect(provider.authorizationUrl!.searchParams.get('client_id')).to.equal(url);
    const back = await approveInBrowser(provider.authorizationUrl!);
    await transport.finishAuth(back.searchParams.get('code')!);

    const client = testClient('cimd-test');
    await client.connect(new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), { authProvider: provider }));
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).to.include('write_page');
    await client.close();
    expect(docs.hits('/sdk-client.json'), 'authorize and token share one fetch').to.equal(1);
    const [grant] = await new OAuthGrants(server.services.store).listForUser('ann');
    expect(grant).to.include({ client_id: url, client_name: 'Doc App' });
  });

  it("names the app, its logo's host and its document URL on the pages, escaped", async () => {
    const url = docs.serveDocument('/named.json', { ...APP, client_name: '<b>Bold</b> App', logo_uri: 'https://cdn.example/logo.png' });
    const res = await new Browser().get(authorizeUrl(server, { client_id: url, code_challenge: pkce().challenge }));
    const page = await res.text();
    expect(res.status).to.equal(200);
    expect(page).to.include('&lt;b&gt;Bold&lt;/b&gt; App');
    expect(page).to.not.include('<b>Bold');
    expect(page).to.include(`identified by its metadata document at <code>${url}</code>`);
    expect(page).to.include('logo is hosted at cdn.example');
    expect(page).to.not.include('<img');
  });

  it('accepts a document served over plain http from loopback, since this server runs on loopback', async () => {
    const url = docs.serveDocument('/plain.json', APP, {}, true);
    const { access_token } = await connectApp(server, { clientId: url });
    expect((await listTools(server, access_token)).status).to.equal(200);
  });

  it('keeps a document for its max-age and refetches a no-store one on every use', async () => {
    // Each authorization request and token request looks the client up again.
    const use = (clientId: string) => new Browser().get(authorizeUrl(server, { client_id: clientId, code_challenge: pkce().challenge }));
    const kept = docs.serveDocument('/kept.json', APP, { 'cache-control': 'max-age=3600' });
    expect((await use(kept)).status).to.equal(200);
    expect((await use(kept)).status).to.equal(200);
    expect((await tokenRefusal(server, kept)).error, 'the client is known, the code is not').to.equal('invalid_grant');
    expect(docs.hits('/kept.json')).to.equal(1);
    const fresh = docs.serveDocument('/fresh.json', APP, { 'cache-control': 'no-store' });
    expect((await use(fresh)).status).to.equal(200);
    expect((await use(fresh)).status).to.equal(200);
    expect(docs.hits('/fresh.json')).to.equal(2);
  });

  it('refuses at the authorize endpoint with a page, never a redirect', async () => {
    const url = docs.serveDocument('/elsewhere.json', { ...APP, client_id: 'https://other.example/client.json' });
    const res = await new Browser().get(authorizeUrl(server, { client_id: url, code_challenge: pkce().challenge }));
    expect(res.status).to.equal(400);
    expect(res.headers.has('location')).to.equal(false);
    const page = await res.text();
    expect(page).to.include('invalid_client');
    expect(page).to.include('is not the document&#39;s URL');
  });

  const refusals: [string, (path: string) => string, RegExp][] = [
    [
      'a client_id other than its URL',
      (p) => docs.serveDocument(p, { ...APP, client_id: docs.httpsUrl('/other') }),
      /is not the document's URL/,
    ],
    [
      'a redirect URI rule 1 refuses',
      (p) => docs.serveDocument(p, { ...APP, redirect_uris: ['http://evil.example/cb'] }),
      /redirect_uris: .*loopback/,
    ],
    ['no redirect URIs', (p) => docs.serveDocument(p, { ...APP, redirect_uris: [] }), /redirect_uris/],
    ['a client secret', (p) => docs.serveDocument(p, { ...APP, client_secret: 's3cret' }), /client secret/],
    [
      'private_key_jwt without none',
      (p) =>
        docs.serveDocument(p, {
          ...APP,
          token_endpoint_auth_method: 'private_key_jwt',
          token_endpoint_auth_methods_supported: ['private_key_jwt'],
        }),
      /public clients only/,
    ],
    [
      'a document over 5 KiB',
      (p) => docs.serveDocument(p, { ...APP, client_uri: `https://app.example/${'x'.repeat(6000)}` }),
      /larger than 5120 bytes/,
    ],
    ['a redirect response', (p) => serving(p, 302, { location: docs.httpsUrl('/kept.json') }), /redirects are not followed/],
    ['an error status', (p) => serving(p, 500), /HTTP 500/],
    ['HTML', (p) => serving(p, 200, { 'content-type': 'text/html' }, '{}'), /application\/json/],
    ['a root URL', () => `${new URL(docs.httpsUrl('/')).origin}/`, /must have a path/],
    ['a dot segment', () => docs.httpsUrl('/a/../kept.json'), /not in normal form/],
    ['a fragment', () => docs.httpsUrl('/kept.json#x'), /fragment/],
    ['user-info', () => docs.httpsUrl('/kept.json').replace('//', '//me:pw@'), /user name or password/],
  ];
  function serving(path: string, status: number, headers: Record<string, string> = {}, body = ''): string {
    docs.serve(path, (_req, res) => res.writeHead(status, headers).end(body));
    return docs.httpsUrl(path);
  }
  for (const [name, setUp, message] of refusals)
    it(`refuses ${name} with invalid_client saying why`, async () => {
      const refusal = await tokenRefusal(server, setUp(`/refused-${name.replace(/\W+/g, '-')}.json`));
      expect(refusal.error).to.equal('invalid_client');
      expect(refusal.error_description).to.match(message);
    });

  it('gives up on a slow server after the timeout, and remembers the refusal for a while', async () => {
    documentFetch.timeoutMs = 200;
    const answers: (() => void)[] = [];
    docs.serve('/slow.json', (_req, res) => answers.push(() => res.writeHead(200, { 'content-type': 'application/json' }).end('{}')));
    try {
      const started = Date.now();
      const refusal = await tokenRefusal(server, docs.httpsUrl('/slow.json'));
      expect(refusal.error_description).to.match(/no complete answer within 200 ms/);
      expect(Date.now() - started).to.be.below(1500);
      await tokenRefusal(server, docs.httpsUrl('/slow.json'));
      expect(docs.hits('/slow.json'), 'a refused URL is not fetched again at once').to.equal(1);
    } finally {
      documentFetch.timeoutMs = saved.timeoutMs;
      for (const answer of answers) answer();
    }
  });
});
