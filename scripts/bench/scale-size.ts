import { mkdirSync, readdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { vaultDir } from '../../server/vaults/user-vault.js';
import { benchAccounts } from './bench-accounts.js';
import { summarize } from './fixture.js';
import { apiClient, ok, type ApiCall } from './http-client.js';
import { engineSearchLatency } from './scale-engine.js';
import { benchQueries, type BenchQuery } from './scale-queries.js';
import { copyTree, diskMb, SCALE_DIR, scaleVault } from './scale-vault.js';
import { memoryOf, resetPeak, rssAfterGc, rssSampler, sleep, startQuire, type ServerProcess } from './server-process.js';

const USER = 'bench';
const WRITES = 50;
/** Saves follow a commit after this quiet time; short, so the bench sees the save its writes cause. */
const PERSIST_MS = 1000;
const QUIET_MS = 1000;

export interface SizeResult {
  pages: number;
  indexed: number;
  gen_s: number;
  commit_s: number;
  copy_s: number;
  listen_ms: number;
  build_s: number;
  peak_build_mb: number;
  /** The server's RSS and its index builder's own memory together, sampled (see rssSampler). */
  peak_build_tree_mb: number;
  /** The same with the builder's whole RSS: the node binary both map counted twice. */
  peak_build_rss_sum_mb: number;
  /** RSS after GC just before the burst of writes whose save is measured. */
  before_save_mb: number;
  steady_mb: number;
  warm_first_search_ms: number;
  warm_peak_mb: number;
  warm_steady_mb: number;
  search_ms: { p50: number; p99: number; n: number };
  search_by_kind_p50_ms: Record<string, number>;
  /** The same queries run by the engine in the bench's process, on the saved index: CPU ms (see engineSearchLatency). */
  engine_search_ms: { p50: number; p99: number; n: number };
  http_floor_p50_ms: number;
  write_ms: { p50: number; p99: number; n: number };
  save_peak_mb: number;
  save_seen_after_ms: number;
  index_disk_mb: number;
  health_memory: unknown;
}

/** Newest modification time of any file under `dir`, 0 when there is none. */
function newestMtime(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    try {
      newest = Math.max(newest, statSync(join(entry.parentPath, entry.name)).mtimeMs);
    } catch {
      // Replaced between the listing and the stat: the next poll sees its successor.
    }
  }
  return newest;
}

/**
 * Waits until the index folder holds a file written after `after` (epoch ms) and nothing
 * changed there for a second: a save seen from outside, whatever the on-disk layout.
 * Returns when the last write landed, ms after `after`, or NaN when none came in `timeoutMs`.
 */
async function indexSaved(dir: string, after: number, timeoutMs: number): Promise<number> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const newest = (() => {
      try {
        return newestMtime(dir);
      } catch {
        return 0;
      }
    })();
    if (newest > after && Date.now() - newest >= QUIET_MS) return newest - after;
    await sleep(100);
  }
  return NaN;
}

const searchPath = (q: string) => `/vault/search?q=${encodeURIComponent(q)}&limit=10`;

/** Time from "listening" to the first search answered: the vault opens (and builds or loads) on it. */
async function firstSearch(server: ServerProcess, call: ApiCall, q: string): Promise<number> {
  for (;;) {
    try {
      await ok(call, 'GET', searchPath(q));
      return performance.now() - server.listeningAt;
    } catch (err) {
      // fetch stops waiting for headers after 300 s; the vault goes on opening, and asking again waits for that same open.
      if ((err as { cause?: { code?: string } }).cause?.code !== 'UND_ERR_HEADERS_TIMEOUT') throw err;
    }
  }
}

/** Every query twice in order; the second pass (JIT warm, caches as a running server has them) is measured. */
async function searchLatency(call: ApiCall, queries: BenchQuery[]) {
  for (const { q } of queries) await ok(call, 'GET', searchPath(q));
  const byKind: Record<string, number[]> = {};
  const all: number[] = [];
  for (const { kind, q } of queries) {
    const { ms } = await ok(call, 'GET', searchPath(q));
    all.push(ms);
    (byKind[kind] ??= []).push(ms);
  }
  const floor: number[] = [];
  for (let i = 0; i < 200; i++) floor.push((await ok(call, 'GET', '/vault/whoami')).ms);
  return {
    search_ms: summarize(all),
    search_by_kind_p50_ms: Object.fromEntries(Object.entries(byKind).map(([kind, ms]) => [kind, summarize(ms).p50])),
    http_floor_p50_ms: summarize(floor).p50,
  };
}

/** A burst of page edits, then the peak RSS until the index save they cause has landed. */
async function savePeak(server: ServerProcess, call: ApiCall, paths: string[], indexDir: string, pages: number) {
  // What the server holds when the save comes (after health, searches and the edits' pages
  // parsed, the graph built): steady after the build is from before any of that was loaded.
  const before = await rssAfterGc(server);
  resetPeak(server.pid);
  const writes: number[] = [];
  for (let i = 0; i < WRITES; i++) {
    const path = paths[(i * 37) % paths.length];
    const { body } = await ok<{ content: string }>(call, 'GET', `/vault/page/${encodeURI(path)}`);
    const { ms } = await ok(call, 'POST', '/vault/page', { path, content: `${body.content}\nBench edit ${i} zebracorn.\n` });
    writes.push(ms);
  }
  const burstEnd = Date.now();
  const seenAfter = await indexSaved(indexDir, burstEnd, 30_000 + pages);
  return {
    write_ms: summarize(writes),
    before_save_mb: Math.round(before),
    save_peak_mb: memoryOf(server.pid).peakMb,
    save_seen_after_ms: Math.round(seenAfter),
  };
}

/**
 * One vault size through the real server: first build on a fresh data folder, steady RSS,
 * search latency over HTTP, the peak of a save after a burst of writes, and a warm restart.
 */
export async function measureSize(pages: number): Promise<SizeResult> {
  const vault = scaleVault(pages);
  const data = join(SCALE_DIR, `run-${pages}`);
  rmSync(data, { recursive: true, force: true });
  mkdirSync(join(data, 'vaults'), { recursive: true });
  const copyStarted = performance.now();
  copyTree(vault.pristine, vaultDir(data, USER));
  const copyMs = performance.now() - copyStarted;
  const { keys, env } = await benchAccounts(data, [USER]);
  const serverEnv = { ...env, QUIRE_INDEX_PERSIST_MS: String(PERSIST_MS), QUIRE_LOG_LEVEL: 'warn' };
  const indexDir = join(data, 'index', USER);
  const queries = benchQueries(vault.pristine, vault.manifest);

  const cold = await startQuire(data, serverEnv);
  const call = apiClient(cold.url, keys.get(USER)!);
  // The builder is a child process of the server's: the build's memory is both together.
  const tree = rssSampler(cold.pid, 50, true);
  const buildMs = await firstSearch(cold, call, queries[0].q);
  const peakBuild = memoryOf(cold.pid).peakMb;
  const peakBuildTree = Math.max(tree.stop(), peakBuild);
  const peakBuildRssSum = Math.max(tree.rssSum(), peakBuild);
  await indexSaved(indexDir, 0, 60_000 + pages);
  const steady = await rssAfterGc(cold);
  const { body: health } = await ok<{ index: { pages: number }; memory?: unknown }>(call, 'GET', '/vault/health');
  const latency = await searchLatency(call, queries);
  const save = await savePeak(cold, call, vault.manifest.paths, indexDir, pages);
  await cold.stop();

  const warm = await startQuire(data, serverEnv);
  const warmMs = await firstSearch(warm, apiClient(warm.url, keys.get(USER)!), queries[1].q);
  const warmPeak = memoryOf(warm.pid).peakMb;
  await sleep(QUIET_MS);
  const warmSteady = await rssAfterGc(warm);
  await warm.stop();
  const engine = await engineSearchLatency(vaultDir(data, USER), indexDir, queries);

  const s = (ms: number) => Math.round(ms / 100) / 10;
  return {
    pages,
    indexed: health.index.pages,
    gen_s: s(vault.generatedMs),
    commit_s: s(vault.committedMs),
    copy_s: s(copyMs),
    listen_ms: Math.round(cold.startMs),
    build_s: Math.round(buildMs / 10) / 100,
    peak_build_mb: Math.round(peakBuild),
    peak_build_tree_mb: Math.round(peakBuildTree),
    peak_build_rss_sum_mb: Math.round(peakBuildRssSum),
    steady_mb: Math.round(steady),
    warm_first_search_ms: Math.round(warmMs),
    warm_peak_mb: Math.round(warmPeak),
    warm_steady_mb: Math.round(warmSteady),
    ...latency,
    engine_search_ms: engine,
    ...save,
    save_peak_mb: Math.round(save.save_peak_mb),
    index_disk_mb: diskMb(indexDir),
    health_memory: health.memory ?? null,
  };
}
