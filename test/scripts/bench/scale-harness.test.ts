import { execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import { apiClient } from '../../../scripts/bench/http-client.js';
import { scaleReport } from '../../../scripts/bench/scale-report.js';
import type { SizeResult } from '../../../scripts/bench/scale-size.js';
import { memoryOf, resetPeak, rssSampler, sleep } from '../../../scripts/bench/server-process.js';
import type { UserTrace } from '../../../scripts/bench/users-load.js';
import { verifyUsers } from '../../../scripts/bench/users-verify.js';
import { tempDir } from '../../helpers/temp-dir.js';

const git = (cwd: string, ...args: string[]) =>
  execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@quire.invalid', ...args], { cwd, encoding: 'utf8' }).trim();

const HELD_ONCE = "let b = Buffer.alloc(200e6, 1); b = null; gc(); console.log('ready'); setInterval(() => {}, 1000);";
/**
 * A node process that holds 100 MB of its own and starts a child that does too; the child
 * ends when its parent does (its stdin closes), so a killed parent leaves nothing behind.
 */
const HOLDS_WITH_CHILD = `
const held = Buffer.alloc(100e6, 1);
const child = require('node:child_process').spawn(process.execPath, ['-e', "const h = Buffer.alloc(100e6, 1); process.stdin.on('end', () => process.exit()).resume(); console.log('ready'); setInterval(() => h, 1000);"], { stdio: ['pipe', 'pipe', 'ignore'] });
child.stdout.once('data', () => console.log('ready'));
setInterval(() => held, 1000);`;

describe('scale bench harness', () => {
  let tmp: ReturnType<typeof tempDir>;
  beforeEach(() => (tmp = tempDir()));
  afterEach(() => tmp.cleanup());

  /** A repository with a start commit and two commits writing `a b.md`, as a user's vault after a run. */
  function repo() {
    const dir = tmp.path;
    git(dir, 'init', '-q', '-b', 'main');
    const commit = (content: string) => {
      writeFileSync(join(dir, 'a b.md'), content);
      git(dir, 'add', '-A');
      git(dir, 'commit', '-q', '-m', content);
      return git(dir, 'rev-parse', 'HEAD');
    };
    return { dir, start: commit('start'), one: commit('# marker-1\n'), two: commit('# marker-2\n') };
  }

  const trace = (fields: Partial<UserTrace>): UserTrace => ({
    call: apiClient('http://127.0.0.1:9', 'unused'),
    feed: [],
    writes: [],
    busy: false,
    ...fields,
  });

  it('passes a feed equal to the branch since the start and writes found at their commits', () => {
    const { dir, start, one, two } = repo();
    const writes = [
      { path: 'a b.md', commit: one, marker: 'marker-1' },
      { path: 'a b.md', commit: two, marker: 'marker-2' },
    ];
    const verdict = verifyUsers(new Map([['u', trace({ start, feed: [one, two], writes })]]), () => dir);
    expect(verdict).to.include({ writes_acked: 2, writes_missing: 0, users_followed: 1, feeds_broken: 0 });
  });

  it('fails a feed with a gap or a duplicate, and a write whose content or commit is not there', () => {
    const { dir, start, one, two } = repo();
    const traces = new Map([
      ['gap', trace({ start, feed: [two] })],
      ['twice', trace({ start, feed: [one, one, two], writes: [{ path: 'a b.md', commit: one, marker: 'marker-2' }] })],
      ['lost', trace({ start, feed: [one, two], writes: [{ path: 'a b.md', commit: 'f'.repeat(40), marker: 'marker-1' }] })],
      ['untouched', trace({})],
    ]);
    const verdict = verifyUsers(traces, () => dir);
    expect(verdict).to.include({ users_followed: 3, feeds_broken: 2, writes_acked: 2, writes_missing: 2 });
  });

  it('prints PASS and FAIL against the goal of each size', () => {
    const result = (pages: number, steady: number): SizeResult => ({
      pages,
      indexed: pages,
      gen_s: 1,
      commit_s: 1,
      copy_s: 1,
      listen_ms: 100,
      build_s: 4,
      peak_build_mb: steady,
      peak_build_tree_mb: 2.5 * steady,
      peak_build_rss_sum_mb: 3 * steady,
      before_save_mb: steady,
      steady_mb: steady,
      warm_first_search_ms: 200,
      warm_peak_mb: steady,
      warm_steady_mb: steady,
      search_ms: { p50: 1, p99: 5, n: 300 },
      search_by_kind_p50_ms: {},
      http_floor_p50_ms: 0.3,
      engine_search_ms: { p50: 0.4, p99: 2, n: 300 },
      write_ms: { p50: 10, p99: 20, n: 50 },
      save_peak_mb: steady,
      save_seen_after_ms: 1000,
      index_disk_mb: 10,
      health_memory: null,
    });
    const lines = scaleReport([result(1000, 90), result(10_000, 140), result(100_000, 900)]).split('\n');
    const row = (label: string) => lines.find((line) => line.startsWith(label))!;
    expect(row('steady RSS')).to.match(/140 MB PASS \(≤ 150\).*900 MB FAIL \(≤ 800\)/);
    expect(row('peak during build (server)')).to.not.contain('FAIL');
    expect(row("peak during build (+ builder's own)")).to.contain('FAIL');
    expect(row('  the same, RSS summed')).to.not.contain('PASS');
    expect(row('first build')).to.match(/4 s PASS \(≤ 5\)/);
    expect(row('search p99 (engine CPU, in-process)')).to.match(/^search p99 \(engine CPU, in-process\)\s+2 ms/);
    expect(lines).to.include('1000,1,4,90,225,90,90,90,200,90,1,5,0.3,0.4,2,10,10');
  });

  it('reads RSS and a peak of another process, and starts the peak again', async () => {
    // A child that held 200 MB once and let it go: its peak stays high until reset.
    const child = spawn(process.execPath, ['--expose-gc', '-e', HELD_ONCE], { stdio: ['ignore', 'pipe', 'inherit'] });
    try {
      await once(child.stdout, 'data');
      const before = memoryOf(child.pid!);
      expect(before.peakMb).to.be.greaterThan(before.rssMb + 150);
      resetPeak(child.pid!);
      const after = memoryOf(child.pid!);
      expect(after.peakMb).to.be.lessThan(after.rssMb + 20);
    } finally {
      child.kill();
    }
  });

  it("samples a process with its children's own memory, not the pages they share with it", async () => {
    const parent = spawn(process.execPath, ['-e', HOLDS_WITH_CHILD], { stdio: ['ignore', 'pipe', 'inherit'] });
    try {
      await once(parent.stdout, 'data');
      const sampler = rssSampler(parent.pid!, 20, true);
      await sleep(100);
      const [own, max, sum] = [memoryOf(parent.pid!).rssMb, sampler.stop(), sampler.rssSum()];
      // The child's 100 MB are counted once; its copy of node's binary and libraries, which the parent maps too, only in the sum.
      expect(max).to.be.within(own + 95, own + 130);
      expect(sum - max).to.be.greaterThan(20);
    } finally {
      parent.kill('SIGKILL');
    }
  });
});
