/**
 * Issue 17, goal 6: throughput of GET /vault/page and GET /vault/search against a bare
 * Express route answering the same JSON bodies (the same pages and results, in turn), side by side in one run (autocannon, 8
 * connections). Each side runs in its own process from dist/; rounds alternate so load on
 * the machine hits both alike, and the median of the rounds is reported, in requests per
 * second (the goal's measure) and in each server's CPU per request (read from /proc).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import autocannon from 'autocannon';
import { vaultDir } from '../../../server/vaults/user-vault.js';
import { round, summarize } from '../fixture.js';
import { gitBenchVault } from '../git-vault.js';

const ROUNDS = 3;
const SECONDS = 4;
const CHILD = join(import.meta.dirname, '../read-path-child.mjs');

interface Side {
  proc: ChildProcess;
  info: Record<string, unknown>;
}

async function child(args: string[]): Promise<Side> {
  const proc = spawn(process.execPath, [CHILD, ...args], { stdio: ['pipe', 'pipe', 'inherit'] });
  const line = await new Promise<string>((resolve, reject) => {
    createInterface({ input: proc.stdout! }).once('line', resolve);
    proc.once('exit', (code) => reject(new Error(`bench child exited with ${code}`)));
  });
  return { proc, info: JSON.parse(line) };
}

/** CPU time (user + system) a process has used, µs, from /proc (Linux; the clock ticks are 10 ms). */
function cpuMicros(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10_000;
}

/**
 * Requests per second from one server over SECONDS, and its CPU per request: on a shared
 * machine the rate swings with what else runs, the CPU a request costs much less.
 */
async function rate(side: Side, paths: string[], headers: Record<string, string> = {}): Promise<{ rps: number; cpu: number }> {
  let i = 0;
  const url = side.info.url as string;
  const before = cpuMicros(side.proc.pid!);
  const result = await autocannon({
    url,
    connections: 8,
    duration: SECONDS,
    headers,
    requests: [{ setupRequest: (req) => ({ ...req, path: paths[i++ % paths.length] }) }],
  });
  if (result.non2xx > 0 || result.errors > 0) throw new Error(`${url}: ${result.non2xx} non-2xx, ${result.errors} errors`);
  return { rps: result.requests.average, cpu: (cpuMicros(side.proc.pid!) - before) / result.requests.total };
}

const median = (xs: number[]) => summarize(xs).p50;

export default async function () {
  const { dir, manifest } = gitBenchVault('read-path');
  const data = join(tmpdir(), `quire-bench-read-${process.pid}`);
  rmSync(data, { recursive: true, force: true });
  mkdirSync(join(data, 'vaults'), { recursive: true });
  renameSync(dir, vaultDir(data, 'bench'));
  const pages = manifest.paths.filter((_, i) => i % 37 === 0).slice(0, 200);
  const queries = manifest.titles.slice(0, 200).map((t) => t.split(/\s+/).slice(0, 2).join(' '));
  const quire = await child(['quire', data, pages[0], queries[0]]);
  const headers = { authorization: `Bearer ${quire.info.key as string}` };
  const pagePaths = pages.map((p) => `/vault/page/${encodeURI(p)}`);
  const searchPaths = queries.map((q) => `/vault/search?q=${encodeURIComponent(q)}&limit=10`);
  // The bare twin serves what Quire answered for the same requests: pages of the same sizes, in turn.
  const bodies = async (paths: string[]) =>
    Promise.all(paths.map(async (p) => (await fetch(`${quire.info.url as string}${p}`, { headers })).json()));
  const bareFile = join(data, 'bare-bodies.json');
  writeFileSync(bareFile, JSON.stringify({ pages: await bodies(pagePaths), searches: await bodies(searchPaths) }));
  const bare = await child(['bare', '', bareFile]);
  const barePaths = (kind: string) => pages.map((_, i) => `/${kind}/${i}`);
  const samples = { bare_page: [], page: [], bare_search: [], search: [] } as Record<string, { rps: number; cpu: number }[]>;
  for (let r = 0; r < ROUNDS; r++) {
    samples.bare_page.push(await rate(bare, barePaths('page')));
    samples.page.push(await rate(quire, pagePaths, headers));
    samples.bare_search.push(await rate(bare, barePaths('search')));
    samples.search.push(await rate(quire, searchPaths, headers));
  }
  quire.proc.stdin!.end();
  bare.proc.stdin!.end();
  rmSync(data, { recursive: true, force: true });
  const m = (kind: string, of: 'rps' | 'cpu') => round(median(samples[kind].map((s) => s[of])), 0);
  const sides = Object.keys(samples);
  const rps = Object.fromEntries(sides.map((kind) => [kind, m(kind, 'rps')]));
  const cpu = Object.fromEntries(sides.map((kind) => [kind, m(kind, 'cpu')]));
  return {
    pages: manifest.paths.length,
    req_per_s: rps,
    page_vs_bare: round(rps.page / rps.bare_page, 2),
    search_vs_bare: round(rps.search / rps.bare_search, 2),
    target: 'page ≥ 0.70, search ≥ 0.50 of bare',
    // The same comparison in server CPU per request (bare's over Quire's): steadier on a busy machine.
    server_cpu_us_per_req: cpu,
    page_vs_bare_cpu: round(cpu.bare_page / cpu.page, 2),
    search_vs_bare_cpu: round(cpu.bare_search / cpu.search, 2),
  };
}
