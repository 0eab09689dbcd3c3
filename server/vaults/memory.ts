import { totalmem } from 'node:os';

/** The share of the process's memory the default budget gives to loaded vaults' data. */
const DEFAULT_BUDGET_SHARE = 0.25;

/**
 * What this process may use: its cgroup limit when there is one, else the machine's RAM.
 * Node reports "no limit" as 0 or as a huge number (cgroup v2's `max`), so the smaller wins.
 */
function availableBytes(): number {
  const limit = process.constrainedMemory?.() ?? 0;
  const total = totalmem();
  return limit > 0 ? Math.min(limit, total) : total;
}

/**
 * QUIRE_MEMORY_BUDGET_MB when unset. A quarter, not all: the estimates the budget is checked
 * against leave out garbage not yet collected, requests in flight and a vault's transient peak
 * while it saves its index, and the machine has other work.
 */
export function defaultMemoryBudgetBytes(): number {
  return Math.floor(availableBytes() * DEFAULT_BUDGET_SHARE);
}

/** The process-wide figures health and the metrics line report next to the vaults' own. */
export function processMemory(): { rss: number; heap_used: number; external: number } {
  const { rss, heapUsed, external } = process.memoryUsage();
  return { rss, heap_used: heapUsed, external };
}
