import { readdirSync, readFileSync } from 'node:fs';

/** The text of a /proc file, or none once its process or thread is gone (they end while we read). */
function procText(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT' || (e as NodeJS.ErrnoException).code === 'ESRCH') return '';
    throw e;
  }
}

/** The pids of a process's direct children (Linux /proc); none once it is gone. */
export function childPids(pid: number): number[] {
  let tasks: string[];
  try {
    tasks = readdirSync(`/proc/${pid}/task`);
  } catch {
    return [];
  }
  const pids: number[] = [];
  for (const task of tasks) {
    const text = procText(`/proc/${pid}/task/${task}/children`).trim();
    if (text) pids.push(...text.split(/\s+/).map(Number));
  }
  return pids;
}

/** A process's arguments, or none once it is gone. */
export function cmdline(pid: number): string[] {
  const text = procText(`/proc/${pid}/cmdline`);
  return text ? text.split('\0') : [];
}

/** Running (not a zombie waiting to be reaped). */
export function running(pid: number): boolean {
  const stat = procText(`/proc/${pid}/stat`);
  return stat !== '' && stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
}
