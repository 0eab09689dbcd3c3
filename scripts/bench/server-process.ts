/**
 * The real server as a child process (`quire serve` from dist/, as `npm start` runs it),
 * watched only from outside: its log on stdout, its memory in /proc/<pid>/status, HTTP.
 * So the scale benches keep measuring whatever the index, persistence or eviction become.
 */
import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';

const ROOT = join(import.meta.dirname, '../..');
const QUIRE = join(ROOT, 'dist/scripts/quire.js');
const GC_HOOK = join(import.meta.dirname, 'gc-on-signal.mjs');

export interface ServerProcess {
  pid: number;
  url: string;
  /** performance.now() of this process when the server printed that it listens. */
  listeningAt: number;
  /** From spawn to listening, ms. */
  startMs: number;
  /** Every JSON log record the server printed, as it arrives. */
  onLog(listener: (record: Record<string, unknown>) => void): void;
  /** Two full GCs in the child (gc-on-signal.mjs), resolved when they are done. */
  gc(): Promise<void>;
  /** SIGTERM (the server persists its indexes and closes), resolved when the process has exited. */
  stop(): Promise<void>;
}

/** Starts `quire serve` on `data` at a free port; resolves once it listens. `nodeArgs` go to node (a CPU profile's flags). */
export async function startQuire(data: string, env: Record<string, string> = {}, nodeArgs: string[] = []): Promise<ServerProcess> {
  const spawnedAt = performance.now();
  const proc = spawn(process.execPath, [...nodeArgs, '--expose-gc', '--import', GC_HOOK, QUIRE, 'serve', '--data', data, '--port', '0'], {
    env: { ...process.env, QUIRE_WATCH: 'false', ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const listeners: ((record: Record<string, unknown>) => void)[] = [];
  const gcDone: (() => void)[] = [];
  // A bench that fails halfway must not leave a server of gigabytes behind.
  const orphaned = () => proc.kill('SIGKILL');
  process.once('exit', orphaned);
  const exited = new Promise<void>((resolve) =>
    proc.once('exit', () => {
      process.off('exit', orphaned);
      resolve();
    }),
  );
  const url = await new Promise<string>((resolve, reject) => {
    createInterface({ input: proc.stdout! }).on('line', (line) => {
      const serving = /^quire serving .* at (http\S+)/.exec(line);
      if (serving) return resolve(serving[1]);
      if (line === 'bench: gc done') return gcDone.shift()?.();
      if (!line.startsWith('{')) return;
      const record = JSON.parse(line) as Record<string, unknown>;
      for (const listener of listeners) listener(record);
    });
    void exited.then(() => reject(new Error(`quire serve exited with ${proc.exitCode}`)));
  });
  const listeningAt = performance.now();
  return {
    pid: proc.pid!,
    url,
    listeningAt,
    startMs: listeningAt - spawnedAt,
    onLog: (listener) => void listeners.push(listener),
    gc: () =>
      new Promise<void>((resolve) => {
        gcDone.push(resolve);
        proc.kill('SIGUSR2');
      }),
    stop: async () => {
      proc.kill('SIGTERM');
      await exited;
    },
  };
}

/** The `field:  N kB` line of a /proc file of `pid`, in MB; NaN without one (an exited process has no VmRSS until reaped). */
function mbIn(pid: number, file: string): (field: string) => number {
  const text = readFileSync(`/proc/${pid}/${file}`, 'utf8');
  return (field) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(text)?.[1] ?? NaN) / 1024;
}

/** VmRSS and VmHWM (the peak since start or since `resetPeak`) of a process, in MB. */
export function memoryOf(pid: number): { rssMb: number; peakMb: number } {
  const mb = mbIn(pid, 'status');
  return { rssMb: mb('VmRSS'), peakMb: mb('VmHWM') };
}

/** CPU time (user + system) a process has used, ms, from /proc. */
export function cpuMsOf(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/** Starts a new peak: VmHWM drops to the current RSS (Linux `clear_refs` 5, on our own child). */
export function resetPeak(pid: number): void {
  writeFileSync(`/proc/${pid}/clear_refs`, '5');
}

/** RSS after two full GCs, once the freed pages are returned. */
export async function rssAfterGc(server: ServerProcess, settleMs = 500): Promise<number> {
  await server.gc();
  await sleep(settleMs);
  return memoryOf(server.pid).rssMb;
}

/**
 * The memory only process `pid` maps, MB: its private pages (`Private_Clean` + `Private_Dirty`
 * of smaps_rollup). A child's RSS also holds the pages it shares: the index builder's were the
 * node binary and its libraries (44 of its 121 MB at 10k pages), which the server maps too
 * and the machine holds once.
 */
function privateMbOf(pid: number): number {
  const mb = mbIn(pid, 'smaps_rollup');
  return mb('Private_Clean') + mb('Private_Dirty');
}

/** `read(pid)`, or 0 once the process is gone (NaN until reaped, no files after). */
function orNothing(read: (pid: number) => number, pid: number): number {
  try {
    const mb = read(pid);
    return Number.isFinite(mb) ? mb : 0;
  } catch {
    return 0;
  }
}

/**
 * Samples RSS every `everyMs` until stopped; returns the highest seen. With `withChildren`,
 * the process's RSS plus its child processes' own memory (see `privateMbOf`): what the
 * machine holds for both; `rssSum()` is the highest sum of their RSS, the shared pages counted twice.
 */
export function rssSampler(pid: number, everyMs = 100, withChildren = false): { max(): number; stop(): number; rssSum(): number } {
  let max = 0;
  let rssSum = 0;
  const rssOf = (id: number) => memoryOf(id).rssMb;
  const sample = () => {
    const own = orNothing(rssOf, pid);
    const children = withChildren ? childrenOf(pid) : [];
    const total = (of: (pid: number) => number) => children.reduce((sum, child) => sum + orNothing(of, child), own);
    max = Math.max(max, total(privateMbOf));
    rssSum = Math.max(rssSum, total(rssOf));
  };
  sample();
  const timer = setInterval(sample, everyMs);
  return {
    max: () => max,
    rssSum: () => rssSum,
    stop: () => {
      clearInterval(timer);
      sample();
      return max;
    },
  };
}

/** The processes `pid` started (the index builder of `quire serve`), from /proc. */
function childrenOf(pid: number): number[] {
  try {
    return readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').split(' ').filter(Boolean).map(Number);
  } catch {
    return [];
  }
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
