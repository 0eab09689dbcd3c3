/**
 * Search on the 10k-page vault: full build, in-process query latency and MRR (each query
 * is a page's title; that page must come first), index update inside one write, start-up
 * from the persisted index to the first answer, RSS, and `rg` on the same files.
 *
 * Start-up and RSS are measured in fresh processes (startup-child.mjs, on the compiled
 * code) that only open the vault and its Knowledge from the persisted index and answer
 * one query (RSS after a forced GC), so neither the build nor the benchmark's own
 * allocations count.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { Knowledge } from '../../../vault-store/knowledge/knowledge.js';
import { Pages } from '../../../vault-store/pages.js';
import { Vault } from '../../../vault-store/vault.js';
import { BENCH_DIR, benchVault, round, summarize } from '../fixture.js';

const STARTUP_RUNS = 3;

interface Startup {
  vaultOpenMs: number;
  startupMs: number;
  rssMb: number;
  loadedFrom: string;
}

function startupInChild(dir: string, indexDir: string): Startup {
  const child = join(import.meta.dirname, '..', 'startup-child.mjs');
  return JSON.parse(execFileSync(process.execPath, ['--expose-gc', child, dir, indexDir], { encoding: 'utf8' })) as Startup;
}

const median = (xs: number[]) => summarize(xs).p50;

const author = { name: 'bench', email: 'bench@quire.invalid' };

function gitVault(source: string): string {
  const dir = join(BENCH_DIR, 'search-git-10000');
  if (!existsSync(join(dir, '.git'))) {
    rmSync(dir, { recursive: true, force: true });
    cpSync(source, dir, { recursive: true });
    const git = (...args: string[]) =>
      execFileSync('git', ['-c', 'user.name=bench', '-c', 'user.email=bench@quire.invalid', ...args], { cwd: dir, stdio: 'ignore' });
    git('init', '-b', 'main');
    git('add', '-A');
    git('commit', '-m', 'seed');
  }
  return dir;
}

export default async function (): Promise<Record<string, unknown>> {
  const { source, manifest } = benchVault();
  const dir = gitVault(source);
  const indexDir = join(BENCH_DIR, 'search-index');
  rmSync(indexDir, { recursive: true, force: true });

  const vault = await Vault.open(dir);
  // Listeners run in order: one before Knowledge's and one after time its update in the write path.
  let committedAt = 0;
  vault.onCommit(() => void (committedAt = performance.now()));
  const started = performance.now();
  const knowledge = await Knowledge.open(vault, { indexDir, persistDelayMs: false });
  const buildMs = performance.now() - started;

  const sample = Array.from({ length: 500 }, (_, i) => (i * 7919) % manifest.titles.length);
  // Each query set runs twice: the first pass includes JIT warm-up right after the build;
  // the second is the steady state a running server sees. Both are reported.
  const titlePass = () => {
    const times: number[] = [];
    let reciprocal = 0;
    for (const k of sample) {
      const t = performance.now();
      const { results } = knowledge.search(manifest.titles[k]);
      times.push(performance.now() - t);
      const at = results.findIndex((r) => r.path === manifest.paths[k]);
      reciprocal += at < 0 ? 0 : 1 / (at + 1);
    }
    return { times, reciprocal };
  };
  const wordPass = () =>
    Array.from({ length: 300 }, (_, i) => {
      const q = `${manifest.vocab[(i * 13) % 2000]} ${manifest.vocab[(i * 31) % 5000]}`;
      const t = performance.now();
      knowledge.search(q);
      return performance.now() - t;
    });
  const coldTitles = titlePass();
  const coldWords = wordPass();
  const { times, reciprocal } = titlePass();
  const wordTimes = wordPass();

  const updates: number[] = [];
  vault.onCommit(() => void updates.push(performance.now() - committedAt));
  const pages = new Pages(vault);
  for (let i = 0; i < 30; i++) {
    const path = manifest.paths[(i * 101) % manifest.paths.length];
    const page = await pages.read(path);
    await pages.write(author, { path, content: `${page.content}\nEdited ${i} zebracorn.\n` });
  }
  await knowledge.close();
  const size = knowledge.index.size;
  const runs = Array.from({ length: STARTUP_RUNS }, () => startupInChild(dir, indexDir));

  const rgTimes: number[] = [];
  const rg = spawnSync('rg', ['--version']).status === 0;
  if (rg) {
    for (let i = 0; i < 10; i++) {
      const t = performance.now();
      spawnSync('rg', ['-l', '-i', '-F', manifest.titles[sample[i]], dir, '--glob', '!.git']);
      rgTimes.push(performance.now() - t);
    }
  }
  return {
    pages: size,
    loaded_from: runs.map((r) => r.loadedFrom).join(),
    build_ms: round(buildMs, 0),
    query_title_ms: summarize(times),
    query_two_words_ms: summarize(wordTimes),
    first_pass_title_ms: summarize(coldTitles.times),
    first_pass_two_words_ms: summarize(coldWords),
    mrr_titles: round(reciprocal / sample.length, 3),
    update_after_write_ms: summarize(updates),
    startup_to_first_answer_ms: round(median(runs.map((r) => r.startupMs)), 0),
    of_which_vault_open_ms: round(median(runs.map((r) => r.vaultOpenMs)), 0),
    rss_mb: round(median(runs.map((r) => r.rssMb)), 0),
    rg_ms: rg ? summarize(rgTimes) : 'rg not installed',
  };
}
