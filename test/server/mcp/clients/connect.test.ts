import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { checkResourceAllowed, resourceUrlFromServerUrl } from '@modelcontextprotocol/sdk/shared/auth-utils.js';
import { SIGNIN_LIMITS } from '../../../../server/auth/login-throttle.js';
import { startTestServer, type TestServer } from '../../../helpers/test-server.js';
import { approveInBrowser, pkce, userWithPassword } from '../../oauth/flow.js';
import { LIST_TOOLS, rpc, testClient } from '../mcp-client.js';
import { PROFILES, type ClientProfile, type Discovery } from './profiles.js';

interface AuthServer {
  issuer: string;
  authorization_endpoint: string;
  token_endpoint: string;
  registration_endpoint?: string;
  scopes_supported?: string[];
  grant_types_supported?: string[];
  client_id_metadata_document_supported?: boolean;
}

interface ClientCredentials {
  clientId: string;
  secret?: string;
  method: string;
}

/**
 * Serves the profiles' Client ID Metadata Documents, standing in for claude.ai, vscode.dev…:
 * plain http on loopback, which the server fetches only because it runs on loopback itself.
 */
async function metadataHost(): Promise<{ url: string; close: () => Promise<void> }> {
  let base = '';
  const server: Server = createServer((req, res) => {
    const profile = PROFILES.find((p) => p.registration.kind === 'cimd' && p.registration.path === req.url);
    if (!profile || profile.registration.kind !== 'cimd') return void res.writeHead(404).end();
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(profile.registration.document(base + req.url)));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { url: base, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

/** 401 → WWW-Authenticate → protected resource metadata → authorization server metadata, from the typed URL. */
async function discover(profile: ClientProfile, typedUrl: string): Promise<{ discovery: Discovery; as: AuthServer }> {
  const challenge = await rpc(new URL(typedUrl).origin, LIST_TOOLS);
  expect(challenge.status, 'an unauthenticated request is challenged').to.equal(401);
  const prmUrl = /resource_metadata="([^"]+)"/.exec(challenge.headers.get('www-authenticate') ?? '')?.[1];
  expect(prmUrl, 'WWW-Authenticate names the resource metadata').to.be.a('string');
  const prm = await (await fetch(prmUrl!)).json();
  if (profile.prmCheck === 'equal')
    expect(new URL(prm.resource).href, 'PRM resource equals the typed URL').to.equal(new URL(typedUrl).href);
  if (profile.prmCheck === 'sdk') {
    const allowed = checkResourceAllowed({ requestedResource: resourceUrlFromServerUrl(typedUrl), configuredResource: prm.resource });
    expect(allowed, `the SDK accepts PRM resource ${prm.resource} for ${typedUrl}`).to.equal(true);
  }
  const as: AuthServer = await (await fetch(`${prm.authorization_servers[0]}/.well-known/oauth-authorization-server`)).json();
  return { discovery: { typedUrl, prm, as }, as };
}

async function register(profile: ClientProfile, discovery: Discovery, as: AuthServer, cimdBase: string): Promise<ClientCredentials> {
  const reg = profile.registration;
  if (reg.kind === 'cimd') {
    expect(as.client_id_metadata_document_supported, 'the server advertises Client ID Metadata Documents').to.equal(true);
    return { clientId: cimdBase + reg.path, method: String(reg.document('').token_endpoint_auth_method) };
  }
  const res = await fetch(as.registration_endpoint!, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(reg.body(discovery)),
  });
  const body = await res.json();
  expect(res.status, JSON.stringify(body)).to.equal(201);
  return { clientId: body.client_id, secret: body.client_secret, method: body.token_endpoint_auth_method ?? 'client_secret_basic' };
}

/** The code exchange authenticated the way the registration answer says (RFC 7591 §3.2.1). */
function exchange(as: AuthServer, creds: ClientCredentials, fields: Record<string, string>): Promise<Response> {
  const body = new URLSearchParams(fields);
  const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded' };
  if (creds.method === 'client_secret_basic' && creds.secret) {
    headers.authorization = `Basic ${Buffer.from(`${encodeURIComponent(creds.clientId)}:${encodeURIComponent(creds.secret)}`).toString('base64')}`;
  } else {
    body.set('client_id', creds.clientId);
    if (creds.method === 'client_secret_post' && creds.secret) body.set('client_secret', creds.secret);
  }
  return fetch(as.token_endpoint, { method: 'POST', headers, body });
}

/** One client's whole connection as it makes it; resolves to the tool names `tools/list` returned. */
async function connectAs(profile: ClientProfile, server: TestServer, cimdBase: string, user: string): Promise<string[]> {
  const typedUrl = `http://${profile.host}:${new URL(server.url).port}/mcp`;
  const { discovery, as } = await discover(profile, typedUrl);
  const creds = await register(profile, discovery, as, cimdBase);

  const { verifier, challenge } = pkce();
  const resource = profile.resource === 'typed' ? typedUrl : profile.resource === 'prm' ? discovery.prm.resource : undefined;
  const scope = profile.scope(discovery);
  const authorize = new URL(as.authorization_endpoint);
  const params = {
    response_type: 'code',
    client_id: creds.clientId,
    redirect_uri: profile.redirectUri,
    state: 'st-1',
    code_challenge: challenge,
  };
  for (const [k, v] of Object.entries({ ...params, code_challenge_method: 'S256', scope, resource }))
    if (v !== undefined) authorize.searchParams.set(k, v);
  const back = await approveInBrowser(authorize, { user });
  expect(back.href.startsWith(`${profile.redirectUri}?`), back.href).to.equal(true);
  expect(back.searchParams.get('state')).to.equal('st-1');
  expect(back.searchParams.get('iss')).to.equal(as.issuer);

  const token = {
    grant_type: 'authorization_code',
    code: back.searchParams.get('code')!,
    code_verifier: verifier,
    redirect_uri: profile.redirectUri,
  };
  const res = await exchange(as, creds, resource ? { ...token, resource } : token);
  const tokens = await res.json();
  expect(res.status, JSON.stringify(tokens)).to.equal(200);
  expect(tokens.token_type.toLowerCase()).to.equal('bearer');
  if (scope?.split(' ').includes('offline_access')) expect(tokens.refresh_token, 'offline_access brings a refresh token').to.be.a('string');

  const client = testClient(profile.name);
  const headers = { authorization: `Bearer ${tokens.access_token}` };
  await client.connect(new StreamableHTTPClientTransport(new URL(typedUrl), { requestInit: { headers } }));
  try {
    return (await client.listTools()).tools.map((t) => t.name);
  } finally {
    await client.close();
  }
}

describe('every mainstream MCP client connects: its exact registration, authorization and token requests, then tools/list', () => {
  let server: TestServer;
  let cimd: Awaited<ReturnType<typeof metadataHost>>;
  // All clients connect at once (each sign-in costs a scrypt run); each test awaits its own.
  const connections = new Map<ClientProfile, Promise<string[]>>();
  before(async () => {
    [server, cimd] = await Promise.all([startTestServer(), metadataHost()]);
    // Sign-ins in flight count against an account's throttle: a few people share the clients.
    const users = PROFILES.map((_, i) => `user${Math.floor(i / SIGNIN_LIMITS.perAccountAddress)}`);
    await Promise.all([...new Set(users)].map((user) => userWithPassword(server, user)));
    for (const [i, profile] of PROFILES.entries()) {
      const connection = connectAs(profile, server, cimd.url, users[i]);
      connection.catch(() => {}); // reported by its own test
      connections.set(profile, connection);
    }
  });
  after(() => Promise.all([server.stop(), cimd.close()]));

  for (const profile of PROFILES) {
    const how = profile.registration.kind === 'cimd' ? 'metadata document' : 'registration';
    if (profile.gap) {
      const { reason, refusal } = profile.gap;
      it(`${profile.name}: cannot connect yet, because ${reason}`, async () => {
        const error = await connections.get(profile)!.then(
          () => expect.fail(`${profile.name} connects now: remove its gap`),
          (err: Error) => err,
        );
        expect(error.message).to.match(refusal);
      });
      continue;
    }
    it(`${profile.name}: ${how} → consent → ${profile.redirectUri} → token → tools/list`, async () => {
      expect(await connections.get(profile)).to.include('read_page');
    });
  }
});
