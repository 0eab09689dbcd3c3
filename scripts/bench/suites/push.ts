/**
 * Issue 16, Quire as the remote: on the 10k-page vault served over loopback HTTP, the time
 * from `git push` of a commit changing 100 pages until the push is accepted (git exits) and
 * until the new text is found by GET /vault/search.
 */
import { mkdirSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../../../server/config.js';
import { startServer } from '../../../server/server.js';
import { vaultDir } from '../../../server/vaults/user-vault.js';
import { round, summarize } from '../fixture.js';
import { editPages, git } from '../git-edits.js';
import { gitBenchVault } from '../git-vault.js';

const ROUNDS = 5;

export default async function () {
  const { dir, manifest } = gitBenchVault('push');
  const data = join(tmpdir(), `quire-bench-push-${process.pid}`);
  rmSync(data, { recursive: true, force: true });
  mkdirSync(join(data, 'vaults'), { recursive: true });
  renameSync(dir, vaultDir(data, 'bench'));
  const running = await startServer(loadConfig({ QUIRE_LOG_LEVEL: 'warn' }, { data, port: '0' }));
  await running.services.accounts.addUser('bench', 'pro');
  const { key } = await running.services.accounts.createKey({ user: 'bench', name: 'bench', scope: 'write' });
  const clone = join(data, 'clone');
  await git(data, 'clone', '-q', running.url.replace('http://', `http://bench:${key}@`) + '/vault.git', clone);

  const accepted: number[] = [];
  const searchable: number[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    const word = `zqxpush${String.fromCharCode(97 + r)}`;
    editPages(clone, manifest.paths, 100, r, word);
    await git(clone, 'commit', '-qam', `Edit 100 pages (${r})`);
    const started = performance.now();
    await git(clone, 'push', '-q', 'origin', 'main');
    accepted.push(performance.now() - started);
    for (;;) {
      const res = await fetch(`${running.url}/vault/search?q=${word}`, { headers: { authorization: `Bearer ${key}` } });
      if (((await res.json()) as { results: unknown[] }).results.length > 0) break;
      if (performance.now() - started > 30_000) throw new Error(`${word} never became searchable`);
    }
    searchable.push(performance.now() - started);
  }
  await running.close();
  rmSync(data, { recursive: true, force: true });
  return {
    push_100_pages_accepted_ms: summarize(accepted.map((ms) => round(ms, 1))),
    push_100_pages_to_searchable_ms: summarize(searchable.map((ms) => round(ms, 1))),
  };
}
