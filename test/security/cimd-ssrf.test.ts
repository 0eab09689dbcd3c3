import { expect } from 'chai';
import { lookup, type LookupAddress } from 'node:dns';
import { createServer, type AddressInfo, type Server } from 'node:net';
import { documentFetch } from '../../server/oauth/client-metadata-document.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';
import { pkce, tokenRequest } from '../server/oauth/flow.js';

/** Any TCP connection to this machine's loopback on one port, whatever protocol follows, is counted. */
async function connectionRecorder(): Promise<{ server: Server; port: number; connections: string[] }> {
  const connections: string[] = [];
  const server = createServer((socket) => {
    connections.push(socket.remoteAddress ?? '?');
    socket.destroy();
  });
  // Dual-stack where the machine has IPv6, so [::1] is counted too.
  await new Promise<void>((resolve) => {
    server.once('error', () => server.listen(0, '127.0.0.1', resolve));
    server.listen({ port: 0, host: '::', ipv6Only: false }, resolve);
  });
  return { server, port: (server.address() as AddressInfo).port, connections };
}

describe('CIMD: a client_id URL cannot make the server fetch from inside its network', () => {
  let quire: TestServer;
  let recorder: Awaited<ReturnType<typeof connectionRecorder>>;
  before(async () => {
    // A base URL off loopback: the normal mode of a deployed server.
    [quire, recorder] = await Promise.all([startTestServer({ QUIRE_BASE_URL: 'https://quire.example' }), connectionRecorder()]);
    // A public-looking name that resolves to loopback, as a rebinding DNS server would answer.
    documentFetch.lookup = ((hostname: string, options: object, callback: (e: Error | null, a: LookupAddress[]) => void) =>
      hostname === 'rebound.example'
        ? callback(null, [{ address: '127.0.0.1', family: 4 }])
        : lookup(hostname, options, callback as never)) as typeof lookup;
  });
  after(async () => {
    delete documentFetch.lookup;
    recorder.server.close();
    await quire.stop();
  });

  const cases = (port: number): [string, RegExp][] => [
    [`https://127.0.0.1:${port}/client.json`, /127\.0\.0\.1 \(loopback\) is not a public address/],
    [`https://[::1]:${port}/client.json`, /::1 \(loopback\) is not a public address/],
    [`https://[::ffff:7f00:1]:${port}/client.json`, /::ffff:7f00:1 \(loopback\) is not a public address/],
    [`https://[::ffff:127.0.0.1]:${port}/client.json`, /not in normal form/],
    [`https://localhost:${port}/client.json`, /localhost resolves to .* \(loopback\), not a public address/],
    [`https://rebound.example:${port}/client.json`, /rebound\.example resolves to 127\.0\.0\.1 \(loopback\), not a public address/],
    ['https://10.0.0.1/client.json', /10\.0\.0\.1 \(private\)/],
    ['https://192.168.1.1/client.json', /\(private\)/],
    ['https://100.64.0.1/client.json', /\(carrierGradeNat\)/],
    ['https://169.254.169.254/latest/meta-data/client.json', /\(linkLocal\)/],
    ['https://[fe80::1]/client.json', /\(linkLocal\)/],
    ['https://[fd00::1]/client.json', /\(uniqueLocal\)/],
    ['https://0.0.0.0/client.json', /\(unspecified\)/],
    ['https://224.0.0.1/client.json', /\(multicast\)/],
    ['http://public.example/client.json', /must use https/],
    [`http://127.0.0.1:${port}/client.json`, /must use https/],
  ];

  it('refuses every private, loopback and link-local address, and plain http, without connecting', async () => {
    const refusals = await Promise.all(
      cases(recorder.port).map(async ([clientId]) => {
        const res = await tokenRequest(quire, {
          grant_type: 'authorization_code',
          client_id: clientId,
          code: 'x',
          code_verifier: pkce().verifier,
        });
        return { status: res.status, ...(await res.json()) };
      }),
    );
    cases(recorder.port).forEach(([clientId, reason], i) => {
      expect(refusals[i].status, clientId).to.equal(400);
      expect(refusals[i].error, clientId).to.equal('invalid_client');
      expect(refusals[i].error_description, clientId).to.match(reason);
    });
    expect(recorder.connections).to.deep.equal([]);
  });

  it('refuses them at the authorize endpoint with a page, not a redirect', async () => {
    const url = new URL('/oauth/authorize', quire.url);
    url.searchParams.set('client_id', `https://localhost:${recorder.port}/client.json`);
    const res = await fetch(url, { redirect: 'manual' });
    expect(res.status).to.equal(400);
    expect(res.headers.has('location')).to.equal(false);
    expect(await res.text()).to.include('invalid_client');
    expect(recorder.connections).to.deep.equal([]);
  });
});
