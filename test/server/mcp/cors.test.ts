import { expect } from 'chai';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadConfig } from '../../../server/config.js';
import { launchBrowser, type TestBrowser } from '../../helpers/browser.js';
import { startTestServer, type TestServer } from '../../helpers/test-server.js';
import { LIST_TOOLS, rpc } from './mcp-client.js';

const INITIALIZE = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'web-ide', version: '1.0.0' } },
};

/** What a page on another origin sees of a cross-origin fetch, or the error that blocked it. */
interface Seen {
  status?: number;
  challenge?: string | null;
  session?: string | null;
  protocol?: string;
  blocked?: string;
}

/** The web app: a blank page on its own origin, whose script calls the server. */
async function staticSite(): Promise<{ server: Server; port: number }> {
  const server = createServer((_req, res) =>
    res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>web IDE</title>'),
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, port: (server.address() as AddressInfo).port };
}

function preflight(server: TestServer, path: string, origin: string): Promise<Response> {
  return fetch(`${server.url}${path}`, {
    method: 'OPTIONS',
    headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization, content-type' },
  });
}

describe('CORS for browser MCP clients (QUIRE_MCP_ALLOWED_ORIGINS)', function () {
  this.timeout(30_000);
  let site: { server: Server; port: number };
  let server: TestServer;
  let browser: TestBrowser;
  let listed: string;
  let unlisted: string;

  before(async () => {
    site = await staticSite();
    listed = `http://127.0.0.1:${site.port}`;
    // Another spelling of the same site is another origin, and not listed.
    unlisted = `http://localhost:${site.port}`;
    [server, browser] = await Promise.all([startTestServer({ QUIRE_MCP_ALLOWED_ORIGINS: listed }), launchBrowser()]);
  });
  after(async () => {
    await browser?.close();
    await server?.stop();
    site?.server.close();
  });

  /** Runs the calls of a browser MCP client from a page on `origin`. */
  async function fromPage(origin: string, key: string): Promise<Seen[]> {
    const page = await browser.page();
    await page.goto(`${origin}/`);
    // No named functions inside: tsx would wrap them in a helper the page does not have.
    const seen = await page.evaluate(
      async ({ mcp, key, body }) => {
        const results = [];
        for (const auth of [{}, { authorization: `Bearer ${key}` }]) {
          try {
            const res = await fetch(mcp, {
              method: 'POST',
              headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...auth },
              body,
            });
            const json = res.status === 200 ? await res.json() : undefined;
            results.push({
              status: res.status,
              challenge: res.headers.get('www-authenticate'),
              session: res.headers.get('mcp-session-id'),
              protocol: json?.result?.protocolVersion,
            });
          } catch (error) {
            results.push({ blocked: String(error) });
          }
        }
        return results as Seen[];
      },
      { mcp: `${server.url}/mcp`, key, body: JSON.stringify(INITIALIZE) },
    );
    await page.close();
    return seen;
  }

  it('lets a page on a listed origin read the 401 challenge, then initialize with an API key', async () => {
    const key = await server.key('ann', 'read');
    const [challenge, initialized] = await fromPage(listed, key);
    expect(challenge.status).to.equal(401);
    expect(challenge.challenge).to.match(
      /^Bearer resource_metadata="http:\/\/127\.0\.0\.1:\d+\/\.well-known\/oauth-protected-resource\/mcp"/,
    );
    expect(initialized.status).to.equal(200);
    expect(initialized.protocol).to.equal('2025-06-18');
    // The page reads Mcp-Session-Id exactly when the server sends one (stateless answers have none).
    const direct = await rpc(server.url, INITIALIZE, { authorization: `Bearer ${key}` });
    expect(initialized.session !== null).to.equal(direct.headers.has('mcp-session-id'));
  });

  it('blocks a page on an unlisted origin', async () => {
    const key = await server.key('ann', 'read');
    const seen = await fromPage(unlisted, key);
    for (const one of seen) expect(one.blocked).to.match(/Failed to fetch/);
  });

  it('answers a listed origin’s preflight on /mcp with its origin, the methods, headers and exposed headers', async () => {
    const res = await preflight(server, '/mcp', listed);
    expect(res.status).to.equal(204);
    expect(res.headers.get('access-control-allow-origin')).to.equal(listed);
    expect(res.headers.get('vary')).to.match(/Origin/);
    expect(res.headers.get('access-control-allow-methods')).to.equal('GET,POST,DELETE,OPTIONS');
    expect(res.headers.get('access-control-allow-headers')).to.equal(
      'Authorization,Content-Type,Accept,Mcp-Session-Id,Mcp-Protocol-Version,Last-Event-ID',
    );
    expect(res.headers.has('access-control-allow-credentials')).to.equal(false);
    const actual = await rpc(server.url, LIST_TOOLS, { origin: listed });
    expect(actual.status).to.equal(401);
    expect(actual.headers.get('access-control-allow-origin')).to.equal(listed);
    expect(actual.headers.get('access-control-expose-headers')).to.include('WWW-Authenticate,Mcp-Session-Id,Mcp-Protocol-Version');
    expect(actual.headers.get('access-control-expose-headers')).to.include('X-RateLimit-Remaining');
  });

  it('gives an unlisted origin no CORS header on /mcp, and 403', async () => {
    for (const res of [await preflight(server, '/mcp', unlisted), await rpc(server.url, LIST_TOOLS, { origin: unlisted })]) {
      expect(res.status).to.equal(403);
      expect(res.headers.has('access-control-allow-origin')).to.equal(false);
    }
  });

  it('opens the OAuth endpoints a client script calls to every origin, but not the browser-only authorize page', async () => {
    for (const path of [
      '/.well-known/oauth-protected-resource/mcp',
      '/.well-known/oauth-authorization-server',
      '/oauth/register',
      '/oauth/token',
      '/oauth/revoke',
    ]) {
      const res = await preflight(server, path, unlisted);
      expect(res.status, path).to.equal(204);
      expect(res.headers.get('access-control-allow-origin'), path).to.equal('*');
    }
    const token = await fetch(`${server.url}/oauth/token`, {
      method: 'POST',
      headers: { origin: listed },
      body: new URLSearchParams({ grant_type: 'nope' }),
    });
    expect(token.status).to.equal(400);
    expect(token.headers.get('access-control-allow-origin')).to.equal('*');
    expect(token.headers.get('access-control-expose-headers')).to.include('RateLimit-Remaining');
    const authorize = await preflight(server, '/oauth/authorize', listed);
    expect(authorize.headers.has('access-control-allow-origin')).to.equal(false);
  });

  it('takes exact origins only, and refuses * at start-up saying why', () => {
    expect(loadConfig({}).mcpAllowedOrigins).to.deep.equal([]);
    expect(loadConfig({ QUIRE_MCP_ALLOWED_ORIGINS: 'http://localhost:6274, https://ide.example' }).mcpAllowedOrigins).to.deep.equal([
      'http://localhost:6274',
      'https://ide.example',
    ]);
    expect(() => loadConfig({ QUIRE_MCP_ALLOWED_ORIGINS: '*' })).to.throw(
      /QUIRE_MCP_ALLOWED_ORIGINS must list origins; \* would let any web page/,
    );
    const error = (() => {
      try {
        loadConfig({ QUIRE_MCP_ALLOWED_ORIGINS: 'https://ide.example/, ide.example, ftp://x.example, https://IDE.example' });
      } catch (err) {
        return (err as Error).message;
      }
    })();
    expect(error).to.include('https://ide.example/, ide.example, ftp://x.example, https://IDE.example');
  });
});
