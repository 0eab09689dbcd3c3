import { Knowledge } from '../../vault-store/knowledge/knowledge.js';
import { Vault } from '../../vault-store/vault.js';
import { summarize } from './fixture.js';
import type { BenchQuery } from './scale-queries.js';

/**
 * The bench's queries run by the search engine itself, in this process, on the index the
 * server saved (opened warm, as a restart does): no HTTP, no JSON, no socket. Every query
 * twice in order, the second pass measured, as `searchLatency` does over HTTP; the two side
 * by side tell the engine's share of a request from the rest. CPU time per query, not wall:
 * on a shared machine a query's wall time also counts the other processes' turns (at load
 * 10, p99 164 ms wall here against 21–23 ms CPU in-process), and on a quiet one they agree.
 */
export async function engineSearchLatency(vaultFolder: string, indexDir: string, queries: BenchQuery[]) {
  const vault = await Vault.open(vaultFolder);
  const knowledge = await Knowledge.open(vault, { indexDir, persistDelayMs: false });
  try {
    for (const { q } of queries) knowledge.search(q, { limit: 10 });
    const all: number[] = [];
    for (const { q } of queries) {
      const started = process.cpuUsage();
      knowledge.search(q, { limit: 10 });
      const { user, system } = process.cpuUsage(started);
      all.push((user + system) / 1000);
    }
    return summarize(all);
  } finally {
    await knowledge.close();
  }
}
