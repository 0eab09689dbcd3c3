/**
 * Issue 17, goal 6: throughput of GET /vault/page and GET /vault/search against a bare
 * Express route answering the same JSON bodies (the same pages and results, in turn), side by side in one run (autocannon, 8
 * connections). Each side runs in its own process from dist/; rounds alternate so load on
 * the machine hits both alike, and the median of the rounds is reported.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
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

async function child(args: string[]): Promise<{ proc: ChildProcess; info: Record<string, unknown> }> {
  const proc = spawn(process.execPath, [CHILD, ...args], { stdio: ['pipe', 'pipe', 'inherit'] });
  const line = await new Promise<string>((resolve, reject) => {
    createInterface({ input: proc.stdout! }).once('line', resolve);
    proc.once('exit', (code) => reject(new Error(`bench child exited with ${code}`)));
  });
  return { proc, info: JSON.parse(line) };
}

async function rate(url: string, paths: string[], headers: Record<string, string> = {}): Promise<number> {
  let i = 0;
  const result = await autocannon({
    url,
    connections: 8,
    duration: SECONDS,
    headers,
    requests: [{ setupRequest: (req) => ({ ...req, path: paths[i++ % paths.length] }) }],
  });
  if (result.non2xx > 0 || result.errors > 0) throw new Error(`${url}: ${result.non2xx} non-2xx, ${result.errors} errors`);
  return result.requests.average;
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
  const samples = { bare_page: [] as number[], page: [] as number[], bare_search: [] as number[], search: [] as number[] };
  for (let r = 0; r < ROUNDS; r++) {
    samples.bare_page.push(await rate(bare.info.url as string, barePaths('page')));
    samples.page.push(await rate(quire.info.url as string, pagePaths, headers));
    samples.bare_search.push(await rate(bare.info.url as string, barePaths('search')));
    samples.search.push(await rate(quire.info.url as string, searchPaths, headers));
  }
  quire.proc.stdin!.end();
  bare.proc.stdin!.end();
  rmSync(data, { recursive: true, force: true });
  const m: Record<keyof typeof samples, number> = {
    bare_page: round(median(samples.bare_page), 0),
    page: round(median(samples.page), 0),
    bare_search: round(median(samples.bare_search), 0),
    search: round(median(samples.search), 0),
  };
  return {
    pages: manifest.paths.length,
    req_per_s: m,
    page_vs_bare: round(m.page / m.bare_page, 2),
    search_vs_bare: round(m.search / m.bare_search, 2),
    target: 'page ≥ 0.70, search ≥ 0.50 of bare',
  };
}
