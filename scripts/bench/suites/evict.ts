/**
 * Issue 17, goal 2: many users' vaults under a memory budget. USERS copies of a 2k-page vault
 * (committed and indexed once, the index copied along, so every open is a warm one) behind one
 * server. First the cost of a loaded vault: RSS after GC against the registry's estimate, vault
 * by vault. Then random users are hit (reads, one write in ten) under a budget that holds about
 * a quarter of them: RSS over time, evictions, and the latency of requests that found their
 * vault closed (a warm reopen) against those that found it loaded; before that, each user's
 * first request one at a time (a reopen with nothing else running).
 */
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { loadConfig } from '../../../server/config.js';
import { createLogger } from '../../../server/log/logger.js';
import { startServer, type RunningServer } from '../../../server/server.js';
import { vaultDir } from '../../../server/vaults/user-vault.js';
import { Workspace } from '../../../vault-store/workspace.js';
import { BENCH_DIR, benchVault, round, summarize } from '../fixture.js';

const PAGES = 2000;
const USERS = 20;
const SECONDS = 30;
const CONCURRENCY = 4;
const MB = 1024 * 1024;

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

/** The 2k-page vault committed with system git, and its index built once next to it. */
async function template(): Promise<{ vault: string; index: string; manifest: ReturnType<typeof benchVault>['manifest'] }> {
  const { source, manifest } = benchVault(PAGES);
  const vault = join(BENCH_DIR, `evict-${PAGES}-git`);
  const index = join(BENCH_DIR, `evict-${PAGES}-index`);
  if (!existsSync(join(index, 'knowledge.idx'))) {
    rmSync(vault, { recursive: true, force: true });
    cpSync(source, vault, { recursive: true });
    const git = (...args: string[]) =>
      execFileSync('git', ['-c', 'user.name=bench', '-c', 'user.email=b@x', ...args], { cwd: vault, stdio: 'ignore' });
    git('init', '-q', '-b', 'main');
    git('add', '-A');
    git('commit', '-q', '-m', 'import');
    await (await Workspace.open(vault, { indexDir: index })).close();
  }
  return { vault, index, manifest };
}

async function serve(data: string, budgetBytes: number): Promise<{ running: RunningServer; keys: string[] }> {
  const config = { ...loadConfig({ QUIRE_WATCH: 'false', QUIRE_LOG_LEVEL: 'warn' }, { data, port: '0' }), memoryBudgetBytes: budgetBytes };
  const running = await startServer(config, createLogger('warn'));
  for (const bucket of Object.keys(config.plans.pro.limits)) config.plans.pro.limits[bucket as keyof typeof config.plans.pro.limits] = 1e12;
  const keys: string[] = [];
  for (let u = 0; u < USERS; u++) {
    if (!(await running.services.accounts.user(`u${u}`))) await running.services.accounts.addUser(`u${u}`, 'pro');
    keys.push((await running.services.accounts.createKey({ user: `u${u}`, name: `k${Date.now()}`, scope: 'write' })).key);
  }
  return { running, keys };
}

function rssMb(): number {
  gc();
  return round(process.memoryUsage().rss / MB, 1);
}

export default async function () {
  const { vault, index, manifest } = await template();
  const data = join(tmpdir(), `quire-bench-evict-${process.pid}`);
  rmSync(data, { recursive: true, force: true });
  for (let u = 0; u < USERS; u++) {
    cpSync(vault, vaultDir(data, `u${u}`), { recursive: true });
    mkdirSync(join(data, 'index'), { recursive: true });
    cpSync(index, join(data, 'index', `u${u}`), { recursive: true });
  }

  // 1. What one loaded vault costs: RSS after GC and the estimate, as vaults are loaded one by one.
  let { running, keys } = await serve(data, Number.MAX_SAFE_INTEGER);
  const empty = rssMb();
  const loadedCurve: { vaults: number; rss_mb: number; estimate_mb: number }[] = [];
  for (let u = 0; u < 8; u++) {
    await fetch(`${running.url}/vault/search?q=${encodeURIComponent(manifest.vocabHead[u])}`, {
      headers: { authorization: `Bearer ${keys[u]}` },
    });
    loadedCurve.push({ vaults: u + 1, rss_mb: rssMb(), estimate_mb: round(running.services.vaults.memory().bytes / MB, 1) });
  }
  const perVault = (loadedCurve.at(-1)!.rss_mb - loadedCurve[0].rss_mb) / (loadedCurve.length - 1);
  const estimatePerVault = loadedCurve.at(-1)!.estimate_mb / loadedCurve.length;
  await running.close();

  // 2. Random users under a budget holding about a quarter of them.
  const budget = Math.round((USERS / 4) * estimatePerVault * MB);
  ({ running, keys } = await serve(data, budget));
  // Nothing is loaded yet: each user's first request, one at a time, is a warm reopen alone.
  const reopen: number[] = [];
  for (let u = 0; u < USERS; u++) {
    const t0 = performance.now();
    const res = await fetch(`${running.url}/vault/search?q=${encodeURIComponent(manifest.vocabHead[u])}`, {
      headers: { authorization: `Bearer ${keys[u]}` },
    });
    await res.arrayBuffer();
    reopen.push(performance.now() - t0);
  }
  const cold: number[] = [];
  const warm: number[] = [];
  const rss: number[] = [];
  let failures = 0;
  const sampler = setInterval(() => rss.push(process.memoryUsage().rss / MB), 250);
  const end = Date.now() + SECONDS * 1000;
  let n = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (Date.now() < end) {
        const u = Math.floor(Math.random() * USERS);
        const i = n++;
        const wasLoaded = running.services.vaults.loadedWorkspace(`u${u}`) !== undefined;
        const headers = { authorization: `Bearer ${keys[u]}`, 'content-type': 'application/json' };
        const t0 = performance.now();
        const res =
          i % 10 === 0
            ? await fetch(`${running.url}/vault/page`, {
                method: 'POST',
                headers,
                body: JSON.stringify({ path: `bench/w${i}.md`, content: `# w${i}\n` }),
              })
            : await fetch(
                `${running.url}/vault/search?q=${encodeURIComponent(manifest.vocabHead[i % manifest.vocabHead.length])}&limit=10`,
                { headers },
              );
        await res.arrayBuffer();
        if (!res.ok) failures++;
        (wasLoaded ? warm : cold).push(performance.now() - t0);
      }
    }),
  );
  clearInterval(sampler);
  const memory = running.services.vaults.memory();
  await running.close();
  rmSync(data, { recursive: true, force: true });
  return {
    pages: PAGES,
    users: USERS,
    rss_empty_mb: empty,
    loaded_curve: loadedCurve,
    rss_per_loaded_vault_mb: round(perVault, 1),
    estimate_per_vault_mb: round(estimatePerVault, 1),
    budget_mb: round(budget / MB, 1),
    requests: n,
    failures,
    evictions: memory.evictions,
    rss_mb: { p50: summarize(rss).p50, max: round(Math.max(...rss), 1) },
    reopen_alone_ms: summarize(reopen),
    to_closed_vault_ms: summarize(cold),
    to_loaded_vault_ms: summarize(warm),
    target: 'RSS under the budget, p99 of a request to an evicted vault ≤ 1 s, nothing lost',
  };
}
