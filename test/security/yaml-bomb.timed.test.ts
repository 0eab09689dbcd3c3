import { expect } from 'chai';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { vaultDir } from '../../server/vaults/user-vault.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';
import { waitFor } from '../vault-store/watcher/helpers.js';
import { guardedRequest, guardHealthz, MAX_HEALTHZ_MS } from './healthz-guard.js';

/** `levels` lists of nine aliases to the list below: 9^levels strings from a few hundred bytes. */
function aliasBomb(levels: number): string {
  let yaml = 'a0: &a0 ["lol"]\n';
  for (let i = 1; i <= levels; i++)
    yaml += `a${i}: &a${i} [${Array(9)
      .fill(`*a${i - 1}`)
      .join(',')}]\n`;
  return `---\n${yaml}---\n# Bomb\nbody\n`;
}

/**
 * A YAML alias bomb in front-matter: with gray-matter, a 329-byte page became a 91 MB JSON
 * answer, and 8 levels blocked the server 15 s and then answered 500 on every read. The
 * block is stored (it is the user's text) but never expanded: every surface that reads the
 * page answers at once, small, with `frontmatter_error`.
 */
describe('security: YAML alias bombs in front-matter', function () {
  this.timeout(60_000);
  let server: TestServer;
  let key: string;

  before(async () => {
    server = await startTestServer();
    key = await server.key('mallory', 'write');
  });
  after(() => server.stop());

  const guarded = (path: string, init: { method?: string; json?: unknown } = {}) => guardedRequest(server, key, path, init);

  for (const levels of [8, 10]) {
    it(`stores a ${levels}-level bomb and answers every read of it at once, small, with frontmatter_error`, async () => {
      const content = aliasBomb(levels);
      const path = `bomb-${levels}.md`;
      expect(content.length).to.be.below(600);
      await guarded('/vault/page', { method: 'POST', json: { path, content } });

      const read = await guarded(`/vault/page/${path}`);
      expect(read.text.length).to.be.below(4096);
      const page = JSON.parse(read.text);
      expect(page).to.include({ content, title: 'Bomb' });
      expect(page.frontmatter).to.deep.equal({});
      expect(page.frontmatter_error).to.match(/alias/i);

      for (const other of [
        '/vault/pages',
        '/vault/search?q=lol',
        '/vault/search?q=body',
        '/vault/tags',
        '/vault/lint',
        `/vault/outline/${path}`,
        '/vault/export',
      ]) {
        expect((await guarded(other)).text.length, other).to.be.below(64 * 1024);
      }
      await guarded('/vault/index/rebuild', { method: 'POST' });
      const lint = JSON.parse((await guarded('/vault/lint')).text);
      expect(lint.findings).to.deep.include({
        rule: 'invalid-frontmatter',
        path,
        line: 1,
        message: `Frontmatter does not parse: ${page.frontmatter_error}`,
      });
    });
  }

  it('commits and serves a bomb dropped into the vault folder (a sync client) as calmly', async () => {
    const { maxLatencyMs, result } = await guardHealthz(server.url, async () => {
      writeFileSync(join(vaultDir(server.dataDir, 'mallory'), 'synced-bomb.md'), aliasBomb(9));
      return waitFor('the synced bomb served', async () => {
        const res = await server.api('/vault/page/synced-bomb.md', { key });
        return res.status === 200 ? res.json() : undefined;
      });
    });
    expect(maxLatencyMs).to.be.below(MAX_HEALTHZ_MS);
    expect(result.frontmatter_error).to.match(/alias/i);
    const batch = JSON.parse(
      (await guarded('/vault/pages/batch', { method: 'POST', json: { paths: ['bomb-8.md', 'bomb-10.md', 'synced-bomb.md'] } })).text,
    );
    expect(batch.pages.map((p: { frontmatter: object }) => p.frontmatter)).to.deep.equal([{}, {}, {}]);
  });
});
