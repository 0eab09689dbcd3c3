/**
 * Issue 17, goal 2: what reopening an evicted vault costs, in-process and on the compiled
 * code. The seeded 2k-page vault (as `scale-users` gives each user) is indexed once, then
 * closed and reopened `--cycles` times as an eviction and the next request would: open,
 * memory estimate, a search, a page read, close. Each cycle runs twice: on an idle event
 * loop, and on one kept busy by 5 ms tasks back to back, as a loaded server's is (each of
 * the open's asynchronous steps then waits for the task running: the count of those steps,
 * not their CPU, made a reopen slow there).
 *
 *   npm run bench -- reopen [--cycles 40] [--pages 2000]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { round, summarize } from '../fixture.js';
import { benchQueries } from '../scale-queries.js';
import { copyTree, scaleVault } from '../scale-vault.js';

export const explicitOnly = true;

/** What each request of the busy loop costs: a loaded server's typical task. */
const BUSY_TASK_MS = 5;

/** Keeps the event loop busy with BUSY_TASK_MS tasks, one after another, until stopped. */
function busyLoop(): () => void {
  let running = true;
  const task = () => {
    const until = performance.now() + BUSY_TASK_MS;
    while (performance.now() < until);
    if (running) setImmediate(task);
  };
  setImmediate(task);
  return () => void (running = false);
}

export default async function (args: string[] = []): Promise<Record<string, unknown>> {
  const { values } = parseArgs({ args, strict: false, options: { cycles: { type: 'string' }, pages: { type: 'string' } } });
  const cycles = Number(values.cycles ?? 40);
  const vault = scaleVault(Number(values.pages ?? 2000));
  // The compiled code, as the server runs it (`npm run bench` builds dist/ first).
  const { Workspace } = (await import(
    join(import.meta.dirname, '../../../dist/vault-store/workspace.js')
  )) as typeof import('../../../vault-store/workspace.js');
  const root = mkdtempSync(join(tmpdir(), 'quire-reopen-'));
  const dir = join(root, 'vault');
  const indexDir = join(root, 'index');
  copyTree(vault.pristine, dir);
  const queries = benchQueries(vault.pristine, vault.manifest).map((q) => q.q);
  const paths = vault.manifest.paths;
  try {
    await (await Workspace.open(dir, { indexDir })).close();
    const run = async (busy: boolean) => {
      const phases = { open: [] as number[], memory: [] as number[], search: [] as number[], read: [] as number[], close: [] as number[] };
      const stop = busy ? busyLoop() : () => undefined;
      for (let i = 0; i < cycles; i++) {
        let at = performance.now();
        const lap = (into: number[]) => {
          const now = performance.now();
          into.push(now - at);
          at = now;
        };
        const workspace = await Workspace.open(dir, { indexDir, persistDelayMs: false });
        lap(phases.open);
        workspace.memoryBytes();
        lap(phases.memory);
        workspace.knowledge.search(queries[i % queries.length], { limit: 10 });
        lap(phases.search);
        await workspace.pages.read(paths[(i * 7919) % paths.length]);
        lap(phases.read);
        await workspace.close();
        lap(phases.close);
      }
      stop();
      return Object.fromEntries(Object.entries(phases).map(([phase, ms]) => [`${phase}_p50_ms`, summarize(ms).p50]));
    };
    const idle = await run(false);
    const busy = await run(true);
    console.log(
      `reopen of a ${paths.length}-page vault, median of ${cycles}: idle loop open ${idle.open_p50_ms} ms, first search ${idle.search_p50_ms} ms; ` +
        `busy loop (${BUSY_TASK_MS} ms tasks) open ${busy.open_p50_ms} ms, first search ${busy.search_p50_ms} ms`,
    );
    return { pages: paths.length, cycles, busy_task_ms: BUSY_TASK_MS, idle, busy, rss_mb: round(process.memoryUsage.rss() / 2 ** 20, 0) };
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}
