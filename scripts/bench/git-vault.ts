import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, realpathSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { BENCH_DIR, benchVault } from './fixture.js';

const git = (cwd: string, ...args: string[]) => execFileSync('git', args, { cwd, stdio: 'ignore' });

/**
 * A fresh copy of the 10k-page vault committed once with system git, under bench-data/.
 * Each suite gets its own copy so one suite's writes never skew another's figures.
 */
export function gitBenchVault(name: string): { dir: string; manifest: ReturnType<typeof benchVault>['manifest'] } {
  const { source, manifest } = benchVault();
  const pristine = join(BENCH_DIR, 'vault-10000-git');
  if (!existsSync(join(pristine, '.git'))) {
    cpSync(realpathSync(source), pristine, { recursive: true });
    git(pristine, 'init', '-q', '-b', 'main');
    git(pristine, 'add', '-A');
    git(pristine, '-c', 'user.name=bench', '-c', 'user.email=bench@quire.invalid', 'commit', '-q', '-m', 'Import');
  }
  const dir = join(BENCH_DIR, `run-${name}`);
  rmSync(dir, { recursive: true, force: true });
  // From the folder itself: where bench-data/ links to a shared cache, copying the link made
  // every run write into the shared pristine repository.
  cpSync(realpathSync(pristine), dir, { recursive: true });
  return { dir, manifest };
}
