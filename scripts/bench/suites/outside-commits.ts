/**
 * Issue 16, commits made outside the server: on the 10k-page vault with its watcher running,
 * the time from a `git commit` of 100 pages in the folder (HEAD moved) to the new text being
 * searchable, and the same for a `git pull` bringing 1,000 changed pages.
 */
import { rmSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { VaultWatcher } from '../../../vault-store/watcher/vault-watcher.js';
import { Workspace } from '../../../vault-store/workspace.js';
import { round, summarize } from '../fixture.js';
import { editPages, git } from '../git-edits.js';
import { gitBenchVault } from '../git-vault.js';

const ROUNDS = 5;
/** Milliseconds from now until `word` is found by search on `ws`. */
async function untilSearchable(ws: Workspace, word: string, started: number): Promise<number> {
  while (ws.knowledge.search(word).results.length === 0) {
    if (performance.now() - started > 30_000) throw new Error(`${word} never became searchable`);
    await sleep(2);
  }
  return performance.now() - started;
}

export default async function () {
  const { dir, manifest } = gitBenchVault('outside-commits');
  const indexDir = `${dir}-index`;
  rmSync(indexDir, { recursive: true, force: true });
  const ws = await Workspace.open(dir, { indexDir, persistDelayMs: false });
  const watcher = await VaultWatcher.start(ws.vault);

  const commit100: number[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    const word = `zqxcommit${String.fromCharCode(97 + r)}`;
    editPages(dir, manifest.paths, 100, r, word);
    await git(dir, 'commit', '-qam', `Edit 100 pages (${r})`);
    commit100.push(await untilSearchable(ws, word, performance.now()));
  }

  const clone = `${dir}-clone`;
  rmSync(clone, { recursive: true, force: true });
  await git(dir, 'clone', '-q', dir, clone);
  const pull1000: number[] = [];
  const pullGit: number[] = [];
  for (let r = 0; r < 3; r++) {
    const word = `zqxpull${String.fromCharCode(97 + r)}`;
    editPages(clone, manifest.paths, 1000, r, word);
    await git(clone, 'commit', '-qam', `Edit 1000 pages (${r})`);
    const started = performance.now();
    await git(dir, 'pull', '-q', '--ff-only', clone, 'main');
    pullGit.push(performance.now() - started);
    pull1000.push(await untilSearchable(ws, word, started));
    await git(clone, 'pull', '-q', '--ff-only', dir, 'main');
  }

  await watcher.close();
  await ws.close();
  rmSync(clone, { recursive: true, force: true });
  return {
    commit_100_pages_to_searchable_ms: summarize(commit100.map((ms) => round(ms, 1))),
    pull_1000_pages_to_searchable_ms: summarize(pull1000.map((ms) => round(ms, 1))),
    git_pull_1000_pages_alone_ms: summarize(pullGit.map((ms) => round(ms, 1))),
  };
}
