/**
 * Issue 13, history: on the 10k-page vault with 5,200 commits after its import, the first 50
 * entries of a page last changed 4,000 commits ago (goal ≤ 50 ms), a page of vault-wide
 * activity (≤ 20 ms), a page read at a commit (≤ 10 ms) and the diff of two versions of a
 * 20 KB page (≤ 10 ms), as medians; and what the change index costs to build, to hold and
 * to follow one new commit.
 */
import { execFileSync } from 'node:child_process';
import { cpSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { PageTimeline } from '../../../vault-store/history/page-timeline.js';
import { Pages } from '../../../vault-store/pages.js';
import { Vault } from '../../../vault-store/vault.js';
import { BENCH_DIR, round, summarize } from '../fixture.js';
import { BIG_PAGE, COMMITS, OLD_PAGE, historyBenchVault } from '../history-vault.js';

const all = () => true;
const author = { name: 'key:bench', email: 'bench@quire.invalid' };
const SAMPLES = 40;

async function time(run: (i: number) => Promise<unknown>, n = SAMPLES): Promise<number[]> {
  const samples: number[] = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    await run(i);
    samples.push(performance.now() - t0);
  }
  return samples;
}

const heapMb = () => {
  globalThis.gc?.();
  return process.memoryUsage().heapUsed / 2 ** 20;
};

export default async function (): Promise<Record<string, unknown>> {
  const fixture = historyBenchVault();
  // A copy per run: the writes below must not change the cached fixture.
  const dir = join(BENCH_DIR, 'run-history');
  rmSync(dir, { recursive: true, force: true });
  cpSync(fixture.dir, dir, { recursive: true });
  const { paths } = fixture;
  const commits = execFileSync('git', ['rev-list', '--first-parent', 'HEAD'], { cwd: dir, encoding: 'utf8' }).trim().split('\n');
  const vault = await Vault.open(dir);
  const pages = new Pages(vault);
  const saved = join(BENCH_DIR, 'run-history-index', 'history.json');
  rmSync(saved, { force: true });
  // Waits for the whole build: the first call measures it.
  const timeline = new PageTimeline(vault, { file: saved, waitMs: 600_000 });
  const history = (input: { path?: string; agent?: string }) =>
    timeline.history({ path: input.path, limit: 50, filter: { agent: input.agent }, visible: all });

  const heapBefore = heapMb();
  // The build yields to the event loop every 20 ms: a timer sees its peak heap.
  let peakMb = 0;
  const sampler = setInterval(() => (peakMb = Math.max(peakMb, process.memoryUsage().heapUsed / 2 ** 20)), 25);
  const cpu = process.cpuUsage();
  const [build] = await time(() => history({ path: OLD_PAGE }), 1);
  const buildCpu = process.cpuUsage(cpu);
  clearInterval(sampler);
  const indexMb = heapMb() - heapBefore;

  const old = await history({ path: OLD_PAGE });
  const lastChange = commits.indexOf(old.entries[0].commit);
  const pageHistory = summarize(await time(() => history({ path: OLD_PAGE })));
  const activity = summarize(await time(() => history({})));
  const byAgent = summarize(await time(() => history({ agent: 'scribe' })));
  // A different page and commit each time: no parse or blob read is reused.
  const readAt = summarize(
    await time(async (i) => {
      const at = commits[100 + i * 97];
      const path = paths[(i * 7_919) % paths.length];
      const past = await timeline.versionAt(path, at, all).catch(() => undefined);
      if (past) pages.viewOf(past.path, past.hash, past.content, past.changed_at);
    }),
  );
  // commits is newest first: the commit just before the big page's second version.
  const beforeRewrite = commits[COMMITS - 5_100 + 1];
  const diffOnce = () => timeline.diff({ path: BIG_PAGE, from: beforeRewrite, visible: all });
  const diff = summarize(await time(diffOnce));
  const bigDiff = await diffOnce();
  // Following a new commit: one commit read and one tree diff before the answer.
  const follow: number[] = [];
  for (let i = 0; i < 10; i++) {
    await pages.write(author, { path: `bench/follow-${i}.md`, content: `# Follow ${i}\n` });
    follow.push(...(await time(() => history({ path: `bench/follow-${i}.md` }), 1)));
  }
  // A first query with the default wait on an index built from nothing: answered VAULT_BUSY
  // at the wait (2 s), the build going on (stopped here by close).
  const fresh = new PageTimeline(vault);
  const t0 = performance.now();
  const firstAnswer = await fresh.history({ path: OLD_PAGE, limit: 50, filter: {}, visible: all }).then(
    () => 'answered',
    (e: { code?: string }) => e.code ?? 'error',
  );
  const firstQuery = performance.now() - t0;
  await fresh.close();
  // A reopen: the saved index is read instead of rebuilt.
  await timeline.close();
  const reopened = new PageTimeline(vault, { file: saved });
  const [warm] = await time(() => reopened.history({ path: OLD_PAGE, limit: 50, filter: {}, visible: all }), 1);
  return {
    commits: COMMITS + 1,
    pages: vault.manifest.pages().length,
    index_build_ms: round(build),
    index_build_cpu_ms: round((buildCpu.user + buildCpu.system) / 1000),
    index_build_peak_heap_mb: round(peakMb - heapBefore),
    index_heap_mb: round(indexMb),
    first_query_while_building: { ms: round(firstQuery), answer: firstAnswer },
    index_saved_mb: round(statSync(saved).size / 2 ** 20),
    index_load_ms: round(warm),
    old_page: { entries: old.entries.length, last_changed_commits_ago: lastChange },
    page_history_ms: pageHistory,
    activity_ms: activity,
    activity_agent_filter_ms: byAgent,
    read_at_ms: readAt,
    diff_20kb_ms: diff,
    diff: { bytes: bigDiff.unified.length, hunks: bigDiff.hunks.length },
    history_after_a_write_ms: summarize(follow),
  };
}
