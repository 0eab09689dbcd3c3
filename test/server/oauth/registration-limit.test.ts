import { expect } from 'chai';
import { loadConfig } from '../../../server/config.js';
import { startTestServer, type TestServer } from '../../helpers/test-server.js';
import { REDIRECT } from './flow.js';

const LIMIT = 3;

/** A registration as a client behind the proxy at `from` (the header only counts when the proxy is trusted). */
function register(server: TestServer, from: string, redirectUri = REDIRECT): Promise<Response> {
  return fetch(`${server.url}/oauth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-forwarded-for': from },
    body: JSON.stringify({ client_name: 'App', redirect_uris: [redirectUri], token_endpoint_auth_method: 'none' }),
  });
}

async function statuses(server: TestServer, from: string, n: number): Promise<number[]> {
  const all: number[] = [];
  for (let i = 0; i < n; i++) all.push((await register(server, from)).status);
  return all;
}

describe('OAuth registration limit (QUIRE_OAUTH_REGISTRATIONS_PER_HOUR)', function () {
  this.timeout(20_000);
  let proxied: TestServer;
  let direct: TestServer;

  before(async () => {
    const limit = { QUIRE_OAUTH_REGISTRATIONS_PER_HOUR: String(LIMIT) };
    [proxied, direct] = await Promise.all([startTestServer({ ...limit, QUIRE_TRUST_PROXY: 'loopback' }), startTestServer(limit)]);
  });
  after(() => Promise.all([proxied.stop(), direct.stop()]));

  it('allows 100 registrations an hour per address by default', () => {
    expect(loadConfig({}).oauthRegistrationsPerHour).to.equal(100);
    expect(loadConfig({ QUIRE_OAUTH_REGISTRATIONS_PER_HOUR: '500' }).oauthRegistrationsPerHour).to.equal(500);
    expect(() => loadConfig({ QUIRE_OAUTH_REGISTRATIONS_PER_HOUR: '0' })).to.throw(/QUIRE_OAUTH_REGISTRATIONS_PER_HOUR must be an integer/);
  });

  it('counts only successful registrations: refusals first, then the limit, then 429 with the standard headers', async () => {
    for (let i = 0; i < LIMIT + 2; i++) {
      const refused = await register(proxied, '198.51.100.1', 'javascript:alert(1)');
      expect(refused.status).to.equal(400);
      expect((await refused.json()).error).to.equal('invalid_redirect_uri');
    }
    const first = await register(proxied, '198.51.100.1');
    expect(first.status).to.equal(201);
    expect(first.headers.get('ratelimit-limit')).to.equal(String(LIMIT));
    expect(first.headers.get('ratelimit-remaining')).to.equal(String(LIMIT - 1));
    expect(await statuses(proxied, '198.51.100.1', LIMIT - 1)).to.deep.equal(Array(LIMIT - 1).fill(201));
    const over = await register(proxied, '198.51.100.1');
    expect(over.status).to.equal(429);
    expect(over.headers.get('retry-after')).to.match(/^\d+$/);
    expect(await over.json()).to.include({ error: 'too_many_requests' });
  });

  it('gives each forwarded address its own budget when the proxy is trusted', async () => {
    expect(await statuses(proxied, '203.0.113.1', LIMIT + 1)).to.deep.equal([...Array(LIMIT).fill(201), 429]);
    expect((await register(proxied, '203.0.113.2')).status).to.equal(201);
  });

  it('shares one budget between forwarded addresses when the proxy is not trusted', async () => {
    expect(await statuses(direct, '203.0.113.1', LIMIT)).to.deep.equal(Array(LIMIT).fill(201));
    expect((await register(direct, '203.0.113.2')).status).to.equal(429);
  });
});
