/**
 * Change feed: 100 commits of `changesSince` against `git log --name-status -n 100` on the
 * 10k-page vault, with the last 120 commits made through Pages.write (target: within 1.5×).
 */
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { VaultHistory } from '../../../vault-store/history/changes.js';
import { Pages } from '../../../vault-store/pages.js';
import { Vault } from '../../../vault-store/vault.js';
import { BENCH_DIR, benchVault, round, summarize } from '../fixture.js';

const author = { name: 'key:bench', email: 'bench@quire.invalid' };

/** A git copy of the 10k vault whose recent history is 120 page writes (made once). */
export async function syncBenchVault(): Promise<string> {
  const dir = join(BENCH_DIR, 'sync-10000');
  if (existsSync(join(dir, '.git', 'quire-bench-ready'))) return dir;
  const { source, manifest } = benchVault();
  cpSync(source, dir, { recursive: true });
  const git = (...args: string[]) =>
    execFileSync('git', ['-c', 'user.name=bench', '-c', 'user.email=b@x', ...args], { cwd: dir, stdio: 'ignore' });
  git('init', '-q', '-b', 'main');
  git('add', '-A');
  git('commit', '-q', '-m', 'import');
  const pages = new Pages(await Vault.open(dir));
  for (let i = 0; i < 120; i++) {
    const path = i % 3 === 0 ? `bench/new-${i}.md` : manifest.paths[(i * 83) % manifest.paths.length];
    await pages.write(author, { path, content: `# Edit ${i}\n\nChanged by the change-feed bench.\n` });
  }
  execFileSync('touch', [join(dir, '.git', 'quire-bench-ready')]);
  return dir;
}

async function time(run: () => Promise<unknown> | unknown, n: number): Promise<number[]> {
  const samples: number[] = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    await run();
    samples.push(performance.now() - t0);
  }
  return samples;
}

export default async function (): Promise<Record<string, unknown>> {
  const dir = await syncBenchVault();
  const since = execFileSync('git', ['rev-parse', 'HEAD~100'], { cwd: dir, encoding: 'utf8' }).trim();
  const vault = await Vault.open(dir);
  const history = new VaultHistory(vault);
  const feed = () => history.changesSince({ since, limit: 100 });
  const [cold] = await time(feed, 1);
  const ours = summarize(await time(feed, 20));
  const native = summarize(await time(() => execFileSync('git', ['log', '--name-status', '-n', '100'], { cwd: dir }), 20));
  const paths = (await feed()).changes.reduce((n, c) => n + c.paths.length, 0);
  return {
    commits: 100,
    paths,
    first_call_ms: round(cold),
    changes_ms: ours,
    git_log_ms: native,
    ratio_p50: round(ours.p50 / native.p50),
  };
}
