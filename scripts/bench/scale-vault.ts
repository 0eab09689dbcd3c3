import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { BENCH_DIR, benchVault, type BenchVault } from './fixture.js';

/** The scale benches' cache: committed vaults per size, reused across runs (bench-data/ is git-ignored). */
export const SCALE_DIR = join(BENCH_DIR, 'scale');

export interface ScaleVault {
  /** A committed, packed repository of the generated vault: copy it, never write to it. */
  pristine: string;
  manifest: BenchVault['manifest'];
  /** What generating the markdown took (the generator's own figure, kept with the cached vault). */
  generatedMs: number;
  /** What committing and packing it with system git took, when it was done (cached: the first run's). */
  committedMs: number;
}

// No automatic gc: after a commit of thousands of objects it starts in the background and holds the lock our own gc needs.
const git = (cwd: string, ...args: string[]) =>
  execFileSync('git', ['-c', 'user.name=bench', '-c', 'user.email=bench@quire.invalid', '-c', 'gc.auto=0', ...args], {
    cwd,
    stdio: ['ignore', 'ignore', 'pipe'],
  });

/**
 * The seeded vault of `pages` pages committed once and packed (`git gc`), as a repository a
 * user pushed or cloned in would be; the first call per size generates and commits it.
 */
export function scaleVault(pages: number): ScaleVault {
  const { source, manifest } = benchVault(pages);
  const pristine = join(SCALE_DIR, `vault-${pages}-git`);
  const timing = `${pristine}.json`;
  if (!existsSync(timing)) {
    rmSync(pristine, { recursive: true, force: true });
    mkdirSync(SCALE_DIR, { recursive: true });
    const started = performance.now();
    copyTree(source, pristine);
    git(pristine, 'init', '-q', '-b', 'main');
    git(pristine, 'add', '-A');
    git(pristine, 'commit', '-q', '-m', 'Import');
    git(pristine, 'gc', '-q');
    writeFileSync(timing, JSON.stringify({ committedMs: performance.now() - started }));
  }
  const { committedMs } = JSON.parse(readFileSync(timing, 'utf8')) as { committedMs: number };
  const generatedMs = (manifest as unknown as { ms: number }).ms;
  return { pristine, manifest, generatedMs, committedMs };
}

/**
 * `cp -a`: several times faster than `fs.cpSync` on 100k small files. `from` is resolved
 * first: in a worktree whose bench-data links to a shared cache, `cp -a` of the link copied
 * the link, and the server then wrote its commits into the shared pristine repository.
 */
export function copyTree(from: string, to: string): void {
  execFileSync('cp', ['-a', realpathSync(from), to]);
}

/** Bytes-on-disk summary of a folder (`du -sm`), for the report. */
export function diskMb(dir: string): number {
  return Number(execFileSync('du', ['-sm', dir], { encoding: 'utf8' }).split('\t')[0]);
}
