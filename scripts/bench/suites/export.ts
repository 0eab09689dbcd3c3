/**
 * Zip export of the 10k-page vault against `git archive --format=zip HEAD` (target: within
 * 1.5×), both written to a file; also the export's peak RSS, measured in a child process so
 * nothing else this runner holds is counted, and one export under an 80 MB heap cap: the
 * vault's blobs (58 MB) plus the archive (19 MB) would not fit if either were buffered.
 */
import { execFileSync } from 'node:child_process';
import { createWriteStream, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { exportZip } from '../../../vault-store/export/export-zip.js';
import { Vault } from '../../../vault-store/vault.js';
import { BENCH_DIR, round, summarize } from '../fixture.js';
import { syncBenchVault } from './changes.js';

const RUNS = 5;

/** One export in this process: its time, RSS once the vault is open, and peak RSS. */
async function exportOnce(dir: string, file: string): Promise<{ ms: number; openRssMb: number; rssMb: number }> {
  const vault = await Vault.open(dir);
  const openRssMb = Math.round(process.memoryUsage().rss / 2 ** 20);
  const t0 = performance.now();
  await exportZip(vault, {}, createWriteStream(file));
  return { ms: performance.now() - t0, openRssMb, rssMb: Math.round(process.resourceUsage().maxRSS / 1024) };
}

function runChild(flags: string[], dir: string, file: string): { ms: number; openRssMb: number; rssMb: number } {
  return JSON.parse(execFileSync('node', [...flags, '--import', 'tsx', import.meta.filename, dir, file], { encoding: 'utf8' }));
}

export default async function (): Promise<Record<string, unknown>> {
  const dir = await syncBenchVault();
  const ours = join(BENCH_DIR, 'export-ours.zip');
  const theirs = join(BENCH_DIR, 'export-git.zip');
  const quire: number[] = [];
  const git: number[] = [];
  let rssMb = 0;
  let openRssMb = 0;
  // Interleaved, so load from elsewhere on the machine hits both alike.
  for (let i = 0; i < RUNS; i++) {
    const child = runChild([], dir, ours);
    quire.push(child.ms);
    rssMb = Math.max(rssMb, child.rssMb);
    openRssMb = Math.max(openRssMb, child.openRssMb);
    const t0 = performance.now();
    execFileSync('git', ['archive', '--format=zip', '-o', theirs, 'HEAD'], { cwd: dir });
    git.push(performance.now() - t0);
  }
  const capped = runChild(['--max-old-space-size=80'], dir, ours);
  const result = {
    files: Number(execFileSync('git', ['ls-tree', '-r', '--name-only', 'HEAD'], { cwd: dir, encoding: 'utf8' }).trim().split('\n').length),
    export_ms: summarize(quire),
    git_archive_ms: summarize(git),
    ratio_p50: round(summarize(quire).p50 / summarize(git).p50),
    export_mb: round(statSync(ours).size / 2 ** 20, 1),
    git_archive_mb: round(statSync(theirs).size / 2 ** 20, 1),
    rss_after_open_mb: openRssMb,
    export_peak_rss_mb: rssMb,
    export_under_80mb_heap_ms: round(capped.ms),
  };
  rmSync(ours);
  rmSync(theirs);
  return result;
}

if (process.argv[1] === import.meta.filename) {
  console.log(JSON.stringify(await exportOnce(process.argv[2], process.argv[3])));
}
