import { readdirSync, readFileSync } from 'node:fs';

/** The pids of a process's direct children (Linux /proc). */
export function childPids(pid: number): number[] {
  const pids: number[] = [];
  for (const task of readdirSync(`/proc/${pid}/task`, { withFileTypes: true })) {
    const text = readFileSync(`/proc/${pid}/task/${task.name}/children`, 'utf8').trim();
    if (text) pids.push(...text.split(/\s+/).map(Number));
  }
  return pids;
}

/** A process's arguments, or none once it is gone. */
export function cmdline(pid: number): string[] {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
  } catch {
    return [];
  }
}

/** Running (not a zombie waiting to be reaped). */
export function running(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return false;
  }
}
