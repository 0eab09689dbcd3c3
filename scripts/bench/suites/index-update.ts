/**
 * Issue 17: the CPU of one `.git/index` update after a commit batch, as the write path makes
 * it (GitIndex.update: stat the working files, put their entries, write the file under
 * index.lock), for a batch of 4 pages at random paths, on indexes of 10k and 100k entries
 * (`BENCH_INDEX_SIZES` to choose). CPU time of the process (user + system, the thread pool's
 * renames included) per update, median and p90 of ROUNDS updates after WARMUP. Paths are
 * those of a 300-folder vault; the index is made with serializeIndex, no git needed.
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { hashBlob } from '../../../vault-store/git/hash-blob.js';
import { GitIndex, type IndexChange } from '../../../vault-store/git/index-file.js';
import { serializeIndex } from '../../../vault-store/git/index-format.js';
import { ZERO_STAT } from '../../../vault-store/git/index-record.js';
import { round, summarize } from '../fixture.js';

const SIZES = (process.env.BENCH_INDEX_SIZES ?? '10000,100000').split(',').map(Number);
const WARMUP = 10;
const ROUNDS = 150;
const BATCH = 4;

async function measure(n: number) {
  const dir = join(tmpdir(), `quire-bench-index-${process.pid}-${n}`);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(join(dir, '.git'), { recursive: true });
  const paths = Array.from(
    { length: n },
    (_, i) => `notes-${String(i % 300).padStart(3, '0')}/page-${String(i).padStart(6, '0')}.md`,
  ).sort();
  const flags = { assumeValid: false, skipWorktree: false, intentToAdd: false };
  const stat = { ...ZERO_STAT, size: 100, mtimeSec: 1_600_000_000, ctimeSec: 1_600_000_000 };
  const entries = paths.map((path) => ({ path, oid: hashBlob(Buffer.from(path)), mode: 0o100644, stage: 0, flags, stat }));
  writeFileSync(join(dir, '.git/index'), serializeIndex(entries));
  const index = new GitIndex({ gitdir: join(dir, '.git') });
  let seed = 42;
  const random = () => Math.floor(((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31) * n);
  const cpuMs: number[] = [];
  try {
    for (let r = 0; r < WARMUP + ROUNDS; r++) {
      const changes: IndexChange[] = [];
      for (let k = 0; k < BATCH; k++) {
        const path = paths[random()];
        const content = Buffer.from(`round ${r}, page ${k}`);
        mkdirSync(dirname(join(dir, path)), { recursive: true });
        writeFileSync(join(dir, path), content);
        changes.push({ path, oid: hashBlob(content), mode: 0o100644, size: content.length });
      }
      const before = process.cpuUsage();
      await index.update(changes, dir);
      const { user, system } = process.cpuUsage(before);
      if (r >= WARMUP) cpuMs.push(round((user + system) / 1000, 2));
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const { p50, p99 } = summarize(cpuMs);
  const sorted = [...cpuMs].sort((a, b) => a - b);
  return { entries: n, cpu_ms_per_update: { p50, p90: sorted[Math.floor(sorted.length * 0.9)], p99, n: cpuMs.length } };
}

export default async function () {
  const sizes: Record<string, unknown>[] = [];
  for (const n of SIZES) sizes.push(await measure(n));
  return { pages_per_update: BATCH, sizes };
}
