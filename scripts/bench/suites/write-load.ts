/**
 * Issue 17, goal 7: POST /vault/page latency with 8 concurrent writers on the 10k-page vault,
 * first alone, then under a concurrent read load (GET /vault/page and /vault/search through
 * autocannon). Six writers overwrite pages of their own; two edit the same few pages with
 * base_hash and count the CONFLICTs they get. The server runs from dist/ in its own process
 * (write-load-child.mjs). Afterwards every acknowledged write is looked up in git: its commit
 * on the branch, its blob at its path in that commit, `git status` clean, `git fsck --strict`.
 * The reads come at a fixed rate (WRITE_LOAD_READS_PER_S, default 200; 0 for as fast as the
 * server answers): a closed loop of readers saturates the event loop, and then every request,
 * write or read, waits its turn behind the others whatever the write path costs.
 * WRITE_LOAD_SECONDS (default 15) per phase; QUIRE_* variables reach the server as they are.
 * WRITE_LOAD_CPU_PROF=DIR writes the server's CPU profile there (from the vault opened to the
 * exit) when it exits. `server_cpu_ms_per_write` is the server process's CPU time (user +
 * system, from /proc) over the phase (reads included, in the mixed one) divided by the writes answered in it: on a shared
 * machine it moves much less than the latencies do. `event_loop_delay_ms` is how late the server's
 * event loop ran its turns over the phase (p50, p99, max): what any request waits behind the writes.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import autocannon from 'autocannon';
import { vaultDir } from '../../../server/vaults/user-vault.js';
import { round, summarize } from '../fixture.js';
import { gitBenchVault } from '../git-vault.js';

const SECONDS = Number(process.env.WRITE_LOAD_SECONDS ?? 15);
const READS_PER_S = Number(process.env.WRITE_LOAD_READS_PER_S ?? 200);
const WARMUP_SECONDS = 3;
const WRITERS = 8;
/** Writers that share HOT_PAGES and write with base_hash; the others own their pages. */
const SHARING = 2;
const HOT_PAGES = 3;
const CHILD = join(import.meta.dirname, '../write-load-child.mjs');
const PROFILE_DIR = process.env.WRITE_LOAD_CPU_PROF;

interface Ack {
  path: string;
  hash: string;
  commit: string;
}

interface Landed {
  batches: number;
  commits: number;
  loop: { p50: number; p99: number; max: number };
}

interface Server {
  proc: ChildProcess;
  url: string;
  headers: Record<string, string>;
  /** The commit batches the server landed so far and the commits they held; the event loop's delay since the last call. */
  landed: () => Promise<Landed>;
}

async function startChild(data: string, page: string): Promise<Server> {
  const profile = PROFILE_DIR ? [join(PROFILE_DIR, `write-load-${Date.now()}.cpuprofile`)] : [];
  const proc = spawn(process.execPath, [CHILD, data, page, ...profile], { stdio: ['pipe', 'pipe', 'inherit'] });
  const lines = createInterface({ input: proc.stdout! });
  const nextLine = () =>
    new Promise<string>((resolve, reject) => {
      lines.once('line', resolve);
      proc.once('exit', (code) => reject(new Error(`bench child exited with ${code}`)));
    });
  const { url, key } = JSON.parse(await nextLine()) as { url: string; key: string };
  const landed = async () => {
    const answer = nextLine();
    proc.stdin!.write('batches\n');
    return JSON.parse(await answer) as Landed;
  };
  return { proc, url, headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, landed };
}

/** One writer's loop until `until`: POST latencies, acknowledged writes, conflicts met. */
async function writer(server: Server, pages: string[], shared: boolean, until: number, tag: string) {
  const latencies: number[] = [];
  const acks: Ack[] = [];
  let conflicts = 0;
  for (let i = 0; performance.now() < until; i++) {
    const path = pages[i % pages.length];
    let base: string | undefined;
    if (shared) {
      const res = await fetch(`${server.url}/vault/page/${encodeURI(path)}`, { headers: server.headers });
      base = ((await res.json()) as { hash: string }).hash;
    }
    const started = performance.now();
    const res = await fetch(`${server.url}/vault/page`, {
      method: 'POST',
      headers: server.headers,
      body: JSON.stringify({ path, content: `# ${tag} ${i}\n\nwrite ${i} by ${tag}\n`, base_hash: base }),
    });
    const body = (await res.json()) as { hash: string; commit: string };
    latencies.push(performance.now() - started);
    if (res.status === 409 && shared) conflicts++;
    else if (!res.ok) throw new Error(`write failed: ${res.status} ${JSON.stringify(body)}`);
    else acks.push({ path, hash: body.hash, commit: body.commit });
  }
  return { latencies, acks, conflicts };
}

/** The process's CPU time so far in ms (utime + stime, in clock ticks of 10 ms). */
function cpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

async function writeLoad(server: Server, paths: string[], phase: number, seconds = SECONDS) {
  const until = performance.now() + seconds * 1000;
  const cpuBefore = cpuMs(server.proc.pid!);
  const landedBefore = await server.landed();
  const hot = paths.slice(0, HOT_PAGES);
  const results = await Promise.all(
    Array.from({ length: WRITERS }, (_, w) =>
      w < SHARING
        ? writer(server, hot, true, until, `p${phase}w${w}`)
        : writer(server, paths.filter((_, i) => i % WRITERS === w && i >= HOT_PAGES).slice(0, 400), false, until, `p${phase}w${w}`),
    ),
  );
  const latencies = results.flatMap((r) => r.latencies);
  const cpu = cpuMs(server.proc.pid!) - cpuBefore;
  const landed = await server.landed();
  const batches = landed.batches - landedBefore.batches;
  return {
    acks: results.flatMap((r) => r.acks),
    figures: {
      write_ms: summarize(latencies),
      writes_per_s: round(latencies.length / seconds, 1),
      server_cpu_ms_per_write: round(cpu / latencies.length, 2),
      commits_per_batch: round((landed.commits - landedBefore.commits) / batches, 2),
      event_loop_delay_ms: landed.loop,
      conflicts: results.reduce((n, r) => n + r.conflicts, 0),
    },
  };
}

async function readLoad(server: Server, paths: string[], queries: string[]) {
  let i = 0;
  const targets = [
    ...paths.map((p) => `/vault/page/${encodeURI(p)}`),
    ...queries.map((q) => `/vault/search?q=${encodeURIComponent(q)}&limit=10`),
  ];
  const result = await autocannon({
    url: server.url,
    connections: 4,
    duration: SECONDS,
    ...(READS_PER_S > 0 ? { overallRate: READS_PER_S } : {}),
    headers: server.headers,
    requests: [{ setupRequest: (req) => ({ ...req, path: targets[(i++ * 7919) % targets.length] }) }],
  });
  if (result.non2xx > 0 || result.errors > 0) throw new Error(`reads: ${result.non2xx} non-2xx, ${result.errors} errors`);
  return { reads_per_s: round(result.requests.average, 0), read_ms: { p50: result.latency.p50, p99: result.latency.p99 } };
}

/** Every acknowledged write, checked in the repository after the server closed. */
function verify(repo: string, before: string, acks: Ack[]) {
  const git = (args: string[], input?: string) => execFileSync('git', args, { cwd: repo, input, encoding: 'utf8', maxBuffer: 1 << 28 });
  const onBranch = new Set(
    git(['rev-list', `${before}..main`])
      .split('\n')
      .filter(Boolean),
  );
  const blobs = git(['cat-file', '--batch-check=%(objectname)'], acks.map((a) => `${a.commit}:${a.path}\n`).join('')).split('\n');
  const lost = acks.filter((a, i) => !onBranch.has(a.commit) || blobs[i] !== a.hash);
  return {
    commits_made: onBranch.size,
    acknowledged: acks.length,
    distinct_commits: new Set(acks.map((a) => a.commit)).size,
    lost: lost.length,
    status_clean: git(['status', '--porcelain']).trim() === '',
    // true, or what git fsck said.
    fsck_ok: (() => {
      try {
        git(['fsck', '--strict', '--no-dangling', '--no-progress']);
        return true;
      } catch (err) {
        const { stdout, stderr } = err as { stdout?: string; stderr?: string };
        return `${stdout ?? ''}${stderr ?? ''}`.trim().slice(0, 2000);
      }
    })(),
  };
}

export default async function () {
  const { dir, manifest } = gitBenchVault('write-load');
  const data = join(tmpdir(), `quire-bench-write-${process.pid}`);
  rmSync(data, { recursive: true, force: true });
  mkdirSync(join(data, 'vaults'), { recursive: true });
  const repo = vaultDir(data, 'bench');
  renameSync(dir, repo);
  const before = execFileSync('git', ['rev-parse', 'main'], { cwd: repo, encoding: 'utf8' }).trim();
  const paths = manifest.paths.filter((_, i) => i % 3 === 0);
  const queries = manifest.titles.slice(0, 200).map((t) => t.split(/\s+/).slice(0, 2).join(' '));
  const server = await startChild(data, paths[0]);
  try {
    // Unmeasured: the first use of a vault starts its watcher, whose first scan of the folder
    // (every file hashed) is a queued task, and loads .git/index and the trees on the way.
    const warmup = await writeLoad(server, paths, 0, WARMUP_SECONDS);
    const alone = await writeLoad(server, paths, 1);
    const [mixed, reads] = await Promise.all([writeLoad(server, paths, 2), readLoad(server, manifest.paths, queries)]);
    server.proc.stdin!.end();
    await new Promise((resolve) => server.proc.once('exit', resolve));
    return {
      pages: manifest.paths.length,
      writers: WRITERS,
      seconds_per_phase: SECONDS,
      writes_alone: alone.figures,
      writes_mixed: { ...mixed.figures, ...reads },
      check: verify(repo, before, [...warmup.acks, ...alone.acks, ...mixed.acks]),
      reads_asked_per_s: READS_PER_S || 'as fast as answered',
      target: 'write p50 ≤ 30 ms, p99 ≤ 100 ms',
    };
  } finally {
    server.proc.kill();
    rmSync(data, { recursive: true, force: true });
  }
}
