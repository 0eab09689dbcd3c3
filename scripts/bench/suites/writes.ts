/**
 * Issue 2: POST /vault/page update latency end to end over HTTP, GET /vault/page throughput,
 * and the same update through native `git add && git commit` for comparison.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../../../server/config.js';
import { startServer } from '../../../server/server.js';
import { vaultDir } from '../../../server/vaults/user-vault.js';
import { summarize, round } from '../fixture.js';
import { gitBenchVault } from '../git-vault.js';

const UPDATES = 300;
const READ_SECONDS = 3;

export default async function () {
  // The watcher (on by default) rescans a folder on each change; API-only servers turn it off.
  return { watcher_on: await measure(true), watcher_off: await measure(false) };
}

async function measure(watch: boolean) {
  const { dir, manifest } = gitBenchVault('writes');
  const data = join(tmpdir(), `quire-bench-${process.pid}`);
  rmSync(data, { recursive: true, force: true });
  mkdirSync(join(data, 'vaults'), { recursive: true });
  renameSync(dir, vaultDir(data, 'bench'));
  // Request lines would interleave with the bench's JSON result on stdout.
  const running = await startServer(loadConfig({ QUIRE_WATCH: String(watch), QUIRE_LOG_LEVEL: 'warn' }, { data, port: '0' }));
  await running.services.accounts.addUser('bench', 'pro');
  const { key } = await running.services.accounts.createKey({ user: 'bench', name: 'bench', scope: 'write' });
  const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
  // Big limits: the benchmark measures the write path, not the limiter.
  running.services.config.plans.pro.limits.write = 1e9;
  running.services.config.plans.pro.limits.read = 1e9;
  const paths = manifest.paths.slice(0, UPDATES);

  // Warm-up: opens the vault, fills caches.
  await fetch(`${running.url}/vault/page/${encodeURI(paths[0])}`, { headers });
  const writes: number[] = [];
  for (let i = 0; i < UPDATES; i++) {
    const started = performance.now();
    const res = await fetch(`${running.url}/vault/page`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ path: paths[i], content: `# Updated ${i}\n\nbench body ${i}\n` }),
    });
    if (!res.ok) throw new Error(`write failed: ${res.status} ${await res.text()}`);
    await res.arrayBuffer();
    writes.push(performance.now() - started);
  }

  let reads = 0;
  const until = performance.now() + READ_SECONDS * 1000;
  const readers = Array.from({ length: 8 }, async (_, w) => {
    for (let i = w; performance.now() < until; i += 8) {
      const res = await fetch(`${running.url}/vault/page/${encodeURI(manifest.paths[(i * 37) % manifest.paths.length])}`, { headers });
      await res.arrayBuffer();
      reads++;
    }
  });
  await Promise.all(readers);

  // Issue 3: GET /vault/search over HTTP, one query at a time (title words of random pages).
  const searches: number[] = [];
  for (let i = 0; i < 200; i++) {
    const words = manifest.titles[(i * 7919) % manifest.titles.length].split(/\s+/).slice(0, 2).join(' ');
    const started = performance.now();
    const res = await fetch(`${running.url}/vault/search?q=${encodeURIComponent(words)}&limit=10`, { headers });
    await res.arrayBuffer();
    searches.push(performance.now() - started);
  }
  await running.close();

  const native: number[] = [];
  const repo = vaultDir(data, 'bench');
  for (let i = 0; i < 30; i++) {
    const started = performance.now();
    writeFileSync(join(repo, paths[i]), `# Native ${i}\n`);
    execFileSync('git', ['add', paths[i]], { cwd: repo });
    execFileSync('git', ['-c', 'user.name=b', '-c', 'user.email=b@x', 'commit', '-q', '-m', 'native'], { cwd: repo });
    native.push(performance.now() - started);
  }
  rmSync(data, { recursive: true, force: true });
  return {
    pages: manifest.paths.length,
    write_ms: summarize(writes),
    read_per_s: round(reads / READ_SECONDS, 0),
    search_http_ms: summarize(searches),
    native_git_add_commit_ms: summarize(native),
  };
}
