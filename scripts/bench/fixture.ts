import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, realpathSync } from 'node:fs';
import { join, resolve } from 'node:path';

const ROOT = resolve(import.meta.dirname, '../..');
export const BENCH_DIR = join(ROOT, 'bench-data');
const GEN = resolve(ROOT, '../shared/tools/gen-vault.mjs');

export interface BenchVault {
  /** Plain folder of markdown as generated (seed 42, 10k pages). */
  source: string;
  /** The generator's manifest (titles, paths, links, vocab). */
  manifest: { paths: string[]; titles: string[]; vocab: string[]; vocabHead: string[] };
}

/** Generates the 10k-page vault once and reuses it (bench-data/ is git-ignored). */
export function benchVault(n = 10_000): BenchVault {
  const source = join(BENCH_DIR, `vault-${n}`);
  if (!existsSync(`${source}.manifest.json`)) {
    execFileSync('node', [GEN, '--out', source, '--n', String(n), '--seed', '42', '--force'], { stdio: 'ignore' });
  }
  // The folder itself, not a link to it (bench-data/ of a worktree links to a shared cache):
  // suites copy `source`, and a copied link is written through.
  return { source: realpathSync(source), manifest: JSON.parse(readFileSync(`${source}.manifest.json`, 'utf8')) };
}

/** Median and tail of a sample, in the sample's unit. */
export function summarize(samples: number[]): { p50: number; p99: number; n: number } {
  const s = [...samples].sort((a, b) => a - b);
  const at = (q: number) => s[Math.min(s.length - 1, Math.floor(q * s.length))];
  return { p50: round(at(0.5)), p99: round(at(0.99)), n: s.length };
}

export function round(x: number, digits = 2): number {
  const f = 10 ** digits;
  return Math.round(x * f) / f;
}
