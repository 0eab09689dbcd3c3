import { expect } from 'chai';
import { pushSetupPerTest } from '../git-http/push-setup.js';

describe('a push to a vault under a memory budget smaller than one vault', function () {
  this.timeout(60_000);
  const p = pushSetupPerTest({}, (config) => ({ ...config, memoryBudgetBytes: 1, vaultIdleMs: 0 }));

  it("lands and is indexed while another user's requests keep closing vaults", async () => {
    const bob = await p.server.key('bob', 'write');
    await p.commitFile('notes/pushed.md', '# Pushed\n\nzanzibar\n');
    let pushing = true;
    const pushed = p.push('main').finally(() => (pushing = false));
    let bobRequests = 0;
    while (pushing) {
      expect((await p.server.api('/vault/health', { key: bob })).status).to.equal(200);
      bobRequests++;
    }
    const result = await pushed;
    expect(result.status, result.stderr).to.equal(0);
    expect(bobRequests, 'the vault was closed and reopened around the push').to.be.greaterThan(0);
    const health = await (await p.server.api('/vault/health', { key: p.key })).json();
    expect(health.index).to.include({ fresh: true, head: p.head() });
    const search = await (await p.server.api('/vault/search?q=zanzibar', { key: p.key })).json();
    expect(search.results.map((r: { path: string }) => r.path)).to.deep.equal(['notes/pushed.md']);
  });
});
