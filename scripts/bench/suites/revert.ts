/**
 * Undoing an agent's session on the 10k-page vault (issue 13: dry run ≤ 1 s, apply ≤ 2 s, one
 * commit). Each round: the agent edits 200 pages (180 changed, 12 created, 8 deleted, one
 * commit each), then the owner makes 100 commits, 20 of them to pages the agent edited (other
 * lines: those merge three-way). Then the revert is planned (dry run, 5 times) and applied
 * once, through the Workspace, so the index follows the commit as in the server.
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { Workspace } from '../../../vault-store/workspace.js';
import { BENCH_DIR, summarize } from '../fixture.js';
import { gitBenchVault } from '../git-vault.js';

const ROUNDS = 3;
const agent = {
  name: 'scout (agent, key:scout-key)',
  email: 'bench@quire.invalid',
  trailers: { 'Quire-Actor': 'key:scout-key', 'Quire-Credential': 'k_scout', 'Quire-Agent': 'scout' },
};
const owner = {
  name: 'laptop (key)',
  email: 'bench@quire.invalid',
  trailers: { 'Quire-Actor': 'key:laptop', 'Quire-Credential': 'k_laptop' },
};

async function timed<T>(samples: number[], run: () => Promise<T>): Promise<T> {
  const t = performance.now();
  const result = await run();
  samples.push(performance.now() - t);
  return result;
}

/** Runs `tasks` eight at a time: the write queue takes them as group commits, one commit each. */
async function inParallel(tasks: (() => Promise<unknown>)[]): Promise<void> {
  for (let i = 0; i < tasks.length; i += 8) await Promise.all(tasks.slice(i, i + 8).map((task) => task()));
}

export default async function (): Promise<Record<string, unknown>> {
  const { dir } = gitBenchVault('revert');
  const indexDir = join(BENCH_DIR, 'revert-index');
  rmSync(indexDir, { recursive: true, force: true });
  const ws = await Workspace.open(dir, { indexDir, persistDelayMs: false });
  const paths = ws.pagePaths();
  const dryMs: number[] = [];
  const applyMs: number[] = [];
  const outcomes: Record<string, number>[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const since = new Date(Math.floor(Date.now() / 1000) * 1000);
    const touched = Array.from({ length: 188 }, (_, i) => paths[(round * 1009 + i * 47) % paths.length]);
    const session = [
      ...touched.slice(0, 180).map((path) => async () => {
        const page = await ws.pages.read(path);
        await ws.pages.write(agent, { path, content: `Agent note ${round}.\n\n${page.content}` });
      }),
      ...Array.from({ length: 12 }, (_, i) => () => ws.pages.write(agent, { path: `agent/r${round}-${i}.md`, content: `# New ${i}\n` })),
      ...touched.slice(180).map((path) => () => ws.pages.delete(agent, { path })),
    ];
    await inParallel(session);
    const later = Array.from({ length: 100 }, (_, i) => async () => {
      const path = i < 20 ? touched[i] : paths[(round * 7919 + i * 131) % paths.length];
      const page = await ws.pages.read(path);
      await ws.pages.write(owner, { path, content: `${page.content}\nOwner's line ${round}.${i}\n` });
    });
    await inParallel(later);

    const request = { target: { by: { agent: 'scout' }, since }, dryRun: true };
    for (let i = 0; i < 5; i++) await timed(dryMs, () => ws.revert(owner, request));
    const head = ws.head;
    const done = await timed(applyMs, () => ws.revert(owner, { ...request, dryRun: false }));
    const { vault } = ws;
    const parent = (await vault.repo.objects.commit(ws.head)).parents[0];
    outcomes.push({
      commits_undone: done.commits.length,
      reverted: done.reverted.length,
      deleted: done.deleted.length,
      recreated: done.recreated.length,
      skipped: done.skipped.length,
      new_commits: parent === head ? 1 : -1,
    });
  }
  await ws.close();
  return { dry_run_ms: summarize(dryMs), apply_ms: summarize(applyMs), rounds: outcomes };
}
