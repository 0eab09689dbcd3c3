/**
 * Issue 17, goal 2: many users on one server. `count` users (default 200) each get a copy
 * of one seeded vault (default 2k pages) with its index already persisted, the server
 * (`quire serve`, a child) runs under QUIRE_MEMORY_BUDGET_MB (and QUIRE_VAULT_IDLE_MS when
 * given), and random users are hit with reads, searches, writes and change-feed polls for
 * `seconds`. Reported: RSS max against the budget, latency p50/p99 per kind and of the first
 * request to a vault not loaded (first touch; or after an eviction the server logged), and,
 * read with git after the server stopped, that every acknowledged write landed and every
 * user's change feed was continuous.
 *
 *   npm run bench -- scale-users [--seconds 120] [--count 200] [--pages 2000] [--budget-mb 1024]
 *                                [--idle-ms N] [--concurrency 8] [--max-rss-mb N]
 *
 * --max-rss-mb (default 3× the budget) stops the load early should the server grow past it:
 * the machine is shared, and a server that does not evict would otherwise take it all.
 * SCALE_USERS_CPU_PROF=DIR writes the server's CPU profile there (node's --cpu-prof, at exit).
 */
import { parseArgs } from 'node:util';
import { vaultDir } from '../../../server/vaults/user-vault.js';
import { round, summarize } from '../fixture.js';
import { benchQueries } from '../scale-queries.js';
import { cpuMsOf, rssSampler, startQuire } from '../server-process.js';
import { usersData } from '../users-data.js';
import { pollChanges, runLoad, type Sample } from '../users-load.js';
import { verifyUsers } from '../users-verify.js';

export const explicitOnly = true;

const latency = (samples: Sample[]) => (samples.length ? summarize(samples.map((s) => s.ms)) : null);

/** Users named by an eviction the server logged: any record mentioning eviction that names a user or vault. */
function evictionsFrom(record: Record<string, unknown>): string[] {
  if (!/evict/i.test(JSON.stringify(record))) return [];
  return [record.user, record.vault, record.evicted].flat().filter((name): name is string => typeof name === 'string');
}

export default async function (args: string[] = []): Promise<Record<string, unknown>> {
  const { values } = parseArgs({
    args,
    strict: false,
    options: {
      seconds: { type: 'string' },
      count: { type: 'string' },
      pages: { type: 'string' },
      'budget-mb': { type: 'string' },
      'idle-ms': { type: 'string' },
      concurrency: { type: 'string' },
      'max-rss-mb': { type: 'string' },
    },
  });
  const num = (name: keyof typeof values, fallback: number) => (values[name] === undefined ? fallback : Number(values[name]));
  const seconds = num('seconds', 120);
  const budgetMb = num('budget-mb', 1024);
  const maxRssMb = num('max-rss-mb', 3 * budgetMb);
  const setup = await usersData(num('count', 200), num('pages', 2000));
  const env: Record<string, string> = { ...setup.accounts.env, QUIRE_MEMORY_BUDGET_MB: String(budgetMb) };
  if (values['idle-ms'] !== undefined) env.QUIRE_VAULT_IDLE_MS = String(values['idle-ms']);

  const profileDir = process.env.SCALE_USERS_CPU_PROF;
  const server = await startQuire(setup.data, env, profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : []);
  const pending = new Set<string>();
  let evictionLines = 0;
  server.onLog((record) => {
    const users = evictionsFrom(record);
    evictionLines += users.length ? 1 : 0;
    for (const user of users) pending.add(user);
  });
  const rss = rssSampler(server.pid, 200);
  let memory: unknown = null;
  const deadline = Date.now() + seconds * 1000;
  let aborted: string | undefined;
  const until = () => {
    if (rss.max() > maxRssMb) aborted ??= `RSS ${Math.round(rss.max())} MB passed the safety stop of ${maxRssMb} MB`;
    return aborted !== undefined || Date.now() >= deadline;
  };
  const started = performance.now();
  const cpuBefore = cpuMsOf(server.pid);
  const { samples, traces } = await runLoad({
    url: server.url,
    keys: setup.accounts.keys,
    paths: setup.vault.manifest.paths,
    queries: benchQueries(setup.vault.pristine, setup.vault.manifest).map((q) => q.q),
    concurrency: num('concurrency', 8),
    until,
    evicted: (user) => pending.delete(user),
    onMemory: (block) => void (memory = block),
  });
  const loadSeconds = (performance.now() - started) / 1000;
  // The server's own CPU per request: on a shared machine, less noisy than its latencies.
  const serverCpuMs = cpuMsOf(server.pid) - cpuBefore;
  // The feed's last stretch, so it can be compared with the whole branch.
  for (const trace of traces.values()) if (trace.cursor) await pollChanges(trace);
  await server.stop();
  const rssMax = Math.round(rss.stop());
  const verdict = verifyUsers(traces, (user) => vaultDir(setup.data, user));

  const failed = samples.filter((s) => s.status >= 300);
  const kinds = [...new Set(samples.map((s) => s.kind))];
  const result = {
    users: setup.users.length,
    pages_per_user: setup.vault.manifest.paths.length,
    setup_s: round(setup.setupMs / 1000, 1),
    load_s: round(loadSeconds, 1),
    aborted: aborted ?? null,
    requests: samples.length,
    req_per_s: round(samples.length / loadSeconds, 0),
    server_cpu_s: round(serverCpuMs / 1000, 1),
    server_cpu_ms_per_request: round(serverCpuMs / Math.max(1, samples.length), 1),
    errors: failed.length,
    error_statuses: [...new Set(failed.map((s) => s.status))],
    users_touched: verdict.users_followed,
    rss_max_mb: rssMax,
    budget_mb: budgetMb,
    rss_within_budget: rssMax <= budgetMb ? 'PASS' : 'FAIL',
    latency_ms: latency(samples),
    by_kind_ms: Object.fromEntries(kinds.map((k) => [k, latency(samples.filter((s) => s.kind === k))])),
    first_touch_ms: latency(samples.filter((s) => s.arrival === 'first_touch')),
    after_eviction_ms: latency(samples.filter((s) => s.arrival === 'reopen')),
    // Which requests make the tail of a reopen: each kind's own first request after an eviction.
    after_eviction_by_kind_ms: Object.fromEntries(
      kinds.map((k) => [k, latency(samples.filter((s) => s.arrival === 'reopen' && s.kind === k))]),
    ),
    eviction_log_lines: evictionLines,
    health_memory: memory,
    ...verdict,
  };
  const notLoaded = result.after_eviction_ms ?? result.first_touch_ms;
  console.log(
    [
      `users ${result.users} × ${result.pages_per_user} pages, ${result.load_s} s, ${result.requests} requests (${result.req_per_s}/s), ${result.errors} errors${aborted ? `, ABORTED: ${aborted}` : ''}`,
      `server CPU ${result.server_cpu_s} s, ${result.server_cpu_ms_per_request} ms a request`,
      `RSS max ${rssMax} MB vs budget ${budgetMb} MB: ${result.rss_within_budget}`,
      `latency p50 ${result.latency_ms?.p50} ms, p99 ${result.latency_ms?.p99} ms`,
      `first request to a vault not loaded (${result.after_eviction_ms ? 'after eviction' : 'first touch'}): p99 ${notLoaded?.p99} ms ${(notLoaded?.p99 ?? Infinity) <= 1000 ? 'PASS' : 'FAIL'} (≤ 1000)`,
      `writes acked ${verdict.writes_acked}, missing in git ${verdict.writes_missing}: ${verdict.writes_missing === 0 ? 'PASS' : 'FAIL'}`,
      `change feeds continuous ${verdict.users_followed - verdict.feeds_broken}/${verdict.users_followed}: ${verdict.feeds_broken === 0 ? 'PASS' : 'FAIL'}`,
      `evictions logged ${evictionLines}; last health memory block: ${JSON.stringify(memory)}`,
    ].join('\n'),
  );
  return result;
}
