/**
 * Saving the knowledge index: peak RSS of a full build with its first save, and of a save
 * after one page changed (VmHWM reset just before it), the save's time, and the warm open,
 * on 10k and 30k pages (`BENCH_SAVE_SIZES=10000` for one size). Each figure comes from
 * a fresh child process on the compiled code (index-save-child.mjs), medians of 3 runs.
 */
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { BENCH_DIR, benchVault, round, summarize } from '../fixture.js';

const RUNS = 3;
const SIZES = (process.env.BENCH_SAVE_SIZES ?? '10000,30000').split(',').map(Number);

type Probe = Record<string, number | string>;

function probe(dir: string, indexDir: string, mode: 'build' | 'save'): Probe {
  const child = join(import.meta.dirname, '..', 'index-save-child.mjs');
  return JSON.parse(execFileSync(process.execPath, ['--expose-gc', child, dir, indexDir, mode, '1'], { encoding: 'utf8' })) as Probe;
}

/** A git copy of the seeded n-page vault, made once; the saves' commits stay in it. */
function gitVault(n: number): string {
  const dir = join(BENCH_DIR, `index-save-git-${n}`);
  if (!existsSync(join(dir, '.git'))) {
    rmSync(dir, { recursive: true, force: true });
    cpSync(benchVault(n).source, dir, { recursive: true });
    const git = (...args: string[]) =>
      execFileSync('git', ['-c', 'user.name=bench', '-c', 'user.email=bench@quire.invalid', ...args], { cwd: dir, stdio: 'ignore' });
    git('init', '-q', '-b', 'main');
    git('add', '-A');
    git('commit', '-q', '-m', 'seed');
  }
  return dir;
}

const median = (runs: Probe[], key: string) => round(summarize(runs.map((r) => Number(r[key]))).p50, 0);

export default async function (): Promise<Record<string, unknown>> {
  const result: Record<string, unknown> = {};
  for (const n of SIZES) {
    const dir = gitVault(n);
    const indexDir = join(BENCH_DIR, `index-save-index-${n}`);
    const build = probe(dir, indexDir, 'build');
    const saves = Array.from({ length: RUNS }, () => probe(dir, indexDir, 'save'));
    result[`pages${n}`] = {
      buildMs: round(Number(build.openMs), 0),
      buildPeakMb: round(Number(build.openPeakMb), 0),
      warmOpenMs: median(saves, 'openMs'),
      rssBeforeSaveMb: median(saves, 'rssBeforeSaveMb'),
      savePeakMb: median(saves, 'savePeakMb'),
      saveOnePageMs: median(saves, 'saveMs'),
    };
  }
  return result;
}
