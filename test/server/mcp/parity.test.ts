import { expect } from 'chai';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { catalog } from '../../../server/ops/catalog.js';
import type { AnyOperation } from '../../../server/ops/operation.js';
import { gitIn, testAuthor } from '../../helpers/temp-vault.js';
import { startTestServer, type TestServer } from '../../helpers/test-server.js';
import { restRequest } from '../../helpers/rest-request.js';
import { call, mcpClient } from './mcp-client.js';
import { PARITY_CASES, SEED, type CaseContext } from './parity-cases.js';
import { comparable, Pairing } from './parity-compare.js';

/** Routes carrying raw bytes differ from their tools by design (base64, image content): tested in rest/files and mcp/files. */
const both = catalog.filter((op) => op.rest && op.mcp && !op.rest.bytes);

describe('REST and MCP parity, driven by the catalog', () => {
  let server: TestServer;
  let restKey: string;
  let mcp: Client;
  const pairing = new Pairing();

  before(async () => {
    server = await startTestServer();
    // Same key name for both users: commits name the key, and results must match.
    restKey = await server.key('rest-user', 'write', { name: 'parity' });
    mcp = await mcpClient(server.url, { bearer: await server.key('mcp-user', 'write', { name: 'parity' }) });
    for (const user of ['rest-user', 'mcp-user']) {
      const vault = await server.services.vaults.get(user);
      for (const [path, content] of Object.entries(SEED)) await vault.pages.write(testAuthor, { path, content });
    }
  });
  after(async () => {
    await mcp.close();
    await server.stop();
  });

  it('has a parity case for every operation bound to both surfaces', () => {
    expect(both.map((op) => op.name).filter((name) => !PARITY_CASES[name])).to.deep.equal([]);
  });

  it('offers every operation with an MCP binding as a tool, and answers every REST binding', async () => {
    // Its own user: a probe that succeeds (rebuild_index) must not touch the vaults compared below.
    const probeKey = await server.key('probe-user', 'write');
    const { tools } = await mcp.listTools();
    expect(tools.map((t) => t.name).sort()).to.deep.equal(
      catalog
        .filter((op) => op.mcp)
        .map((op) => op.name)
        .sort(),
    );
    for (const op of catalog.filter((o) => o.rest && !o.rest.path.includes(':') && !o.rest.path.includes('*'))) {
      const res = await server.api(op.rest!.path, {
        method: op.rest!.method.toUpperCase(),
        key: probeKey,
        ...(op.rest!.method === 'get' ? {} : { json: {} }),
      });
      // An event stream answered: the route exists, and its body never ends.
      if (res.headers.get('content-type') === 'text/event-stream') {
        await res.body?.cancel();
        continue;
      }
      expect(
        (
          await res
            .clone()
            .json()
            .catch(() => ({}))
        ).message ?? '',
        op.name,
      ).to.not.match(/No such endpoint/);
    }
  });

  function contextFor(user: 'rest-user' | 'mcp-user'): CaseContext {
    return {
      hashOf: async (p) => (await (await server.services.vaults.get(user)).pages.read(p)).hash,
      run: async (name, input) => {
        if (user === 'mcp-user') return (await call(mcp, name, input)).structuredContent as Record<string, unknown>;
        const { path, init } = restRequest(
          catalog.find((o) => o.name === name)!,
          input,
        );
        return (await server.api(path, { ...init, key: restKey })).json();
      },
    };
  }

  const ordered = Object.keys(PARITY_CASES)
    .map((name) => both.find((op) => op.name === name))
    .filter((op): op is AnyOperation => op !== undefined);
  for (const op of ordered) {
    it(`${op.name}: same validation error and same result on both surfaces`, async () => {
      const parity = PARITY_CASES[op.name];
      if (parity.bad) {
        const { path, init } = restRequest(op, parity.bad);
        const rest = await server.api(path, { ...init, key: restKey });
        expect(rest.status, `REST ${path}`).to.be.within(400, 499);
        const viaMcp = await call(mcp, op.name, parity.bad);
        expect(viaMcp.isError).to.equal(true);
        expect((viaMcp.structuredContent as { code: string }).code).to.equal((await rest.json()).code);
      }
      const { path, init } = restRequest(op, await parity.good(contextFor('rest-user')));
      const rest = await server.api(path, { ...init, key: restKey });
      const restBody = await rest.json();
      expect(rest.status, JSON.stringify(restBody)).to.be.within(200, 299);
      const viaMcp = await call(mcp, op.name, await parity.good(contextFor('mcp-user')));
      expect(viaMcp.isError, JSON.stringify(viaMcp.structuredContent)).to.not.equal(true);
      pairing.collect(restBody, viaMcp.structuredContent);
      expect(comparable(viaMcp.structuredContent, (text) => pairing.translate(text))).to.deep.equal(comparable(restBody));
    });
  }

  it('leaves both vaults with the same history, commit by commit, as every result said', async () => {
    const [rest, mcpVault] = await Promise.all(['rest-user', 'mcp-user'].map((user) => server.services.vaults.get(user)));
    const log = (dir: string) =>
      gitIn(dir, 'log', '--first-parent', '--format=%H %s')
        .trim()
        .split('\n')
        .map((line) => line.split(' '));
    const [restLog, mcpLog] = [log(rest.dir), log(mcpVault.dir)];
    expect(mcpLog.map(([, ...subject]) => subject.join(' '))).to.deep.equal(restLog.map(([, ...subject]) => subject.join(' ')));
    // Throws when a result named a commit at another place in history than its partner.
    restLog.forEach(([commit], i) => pairing.pair('commit in git log', commit, mcpLog[i][0]));
    const tree = (dir: string) => gitIn(dir, 'ls-tree', '-r', 'HEAD');
    expect(pairing.translate(tree(mcpVault.dir))).to.equal(tree(rest.dir));
  });
});
