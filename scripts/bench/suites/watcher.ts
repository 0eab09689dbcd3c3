/**
 * Issue 3, the watcher: on the 10k-page vault, the full working-tree scan (start-up scan),
 * the time from an external file write to its commit landing and to the new text being
 * searchable (default quiet/stability periods), a burst of edits, and the folder-only
 * watching against chokidar's per-file mode.
 */
import { watch } from 'chokidar';
import { promises as fsp, rmSync } from 'node:fs';
import { join } from 'node:path';
import { Knowledge } from '../../../vault-store/knowledge/knowledge.js';
import { Vault, type CommitEvent } from '../../../vault-store/vault.js';
import { commitExternalEdits } from '../../../vault-store/watcher/external-edits.js';
import { VaultWatcher } from '../../../vault-store/watcher/vault-watcher.js';
import { isNeverCommitted } from '../../../vault-store/worktree/working-files.js';
import { round, summarize } from '../fixture.js';
import { gitBenchVault } from '../git-vault.js';

const SCANS = 5;
const EDITS = 20;
const BURST = 20;

async function timed<T>(task: () => Promise<T>): Promise<[T, number]> {
  const started = performance.now();
  const result = await task();
  return [result, performance.now() - started];
}

/** Resolves with the time at which a commit touching `path` lands. */
function commitOf(landed: Map<string, (at: number) => void>, path: string): Promise<number> {
  return new Promise((resolve) => landed.set(path, resolve));
}

export default async function () {
  const { dir, manifest } = gitBenchVault('watcher');
  const [vault, openMs] = await timed(() => Vault.open(dir));

  const scans: number[] = [];
  for (let i = 0; i < SCANS; i++) {
    const [event, ms] = await timed(() => commitExternalEdits(vault));
    if (event) throw new Error('the pristine vault should have no external edits');
    scans.push(ms);
  }

  const indexDir = `${dir}-index`;
  const [knowledge, indexBuildMs] = await timed(() => Knowledge.open(vault, { indexDir, persistDelayMs: false }));
  const landed = new Map<string, (at: number) => void>();
  let commitCount = 0;
  vault.onCommit((event: CommitEvent) => {
    const at = performance.now();
    commitCount += 1;
    for (const change of event.changes) landed.get(change.path)?.(at);
  });
  const [watcher, startMs] = await timed(() => VaultWatcher.start(vault));

  const toCommit: number[] = [];
  const toSearchable: number[] = [];
  for (let i = 0; i < EDITS; i++) {
    const path = manifest.paths[(i * 389) % manifest.paths.length];
    const word = `zqxwatch${String.fromCharCode(97 + i)}`;
    const commit = commitOf(landed, path);
    await fsp.appendFile(join(dir, path), `\nexternal edit ${word}\n`);
    const settled = performance.now(); // the write has returned: the file is settled
    toCommit.push((await commit) - settled);
    landed.delete(path);
    if (!knowledge.search(word).results.some((hit) => hit.path === path)) throw new Error(`${word} is not searchable in ${path}`);
    toSearchable.push(performance.now() - settled);
  }

  const burstPaths = Array.from({ length: BURST }, (_, i) => `bench-burst/page-${i}.md`);
  const commits = burstPaths.map((path) => commitOf(landed, path));
  const commitsBefore = commitCount;
  const burstStarted = performance.now();
  await fsp.mkdir(join(dir, 'bench-burst'));
  for (const path of burstPaths) await fsp.writeFile(join(dir, path), `# ${path}\n`);
  const burstWritten = performance.now();
  const burstLanded = Math.max(...(await Promise.all(commits)));
  const { folders } = watcher.state();
  await watcher.close();
  const burstCommits = commitCount - commitsBefore;

  // chokidar left to itself holds one fs.watch per file; measured for comparison.
  const [perFile, perFileMs] = await timed(async () => {
    const fsw = watch(dir, { ignoreInitial: true, ignored: (path: string) => isNeverCommitted(path.slice(dir.length + 1)) });
    await new Promise<void>((resolve) => fsw.once('ready', resolve));
    const watched = Object.values(fsw.getWatched()).reduce((n, items) => n + items.length, 0);
    await fsw.close();
    return watched;
  });
  await knowledge.close();
  rmSync(dir, { recursive: true, force: true });
  rmSync(indexDir, { recursive: true, force: true });

  return {
    pages: manifest.paths.length,
    open_ms: round(openMs),
    full_scan_ms: summarize(scans),
    watcher_start_ms: round(startMs),
    watched_folders: folders,
    index_build_ms: round(indexBuildMs),
    edit_to_commit_ms: summarize(toCommit),
    edit_to_searchable_ms: summarize(toSearchable),
    burst: {
      files: BURST,
      write_ms: round(burstWritten - burstStarted),
      last_write_to_commit_ms: round(burstLanded - burstWritten),
      commits: burstCommits,
    },
    chokidar_per_file: { watches: perFile, ready_ms: round(perFileMs) },
  };
}
