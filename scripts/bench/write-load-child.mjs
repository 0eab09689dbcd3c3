/**
 * The server side of the write-load bench, run from the compiled code in dist/ as `npm start`
 * runs it, in its own process so the bench's clients do not share its event loop. Settings
 * come from the environment (QUIRE_WATCH, QUIRE_INDEX_PERSIST_MS, …) as for the real server.
 * `node write-load-child.mjs DATA PAGE [PROFILE]` opens and indexes the vault of user "bench"
 * in DATA before it reports { url, key } (a write key, limits raised); it closes the server
 * (queued writes land, the index is saved) and exits when its stdin closes. A line "batches" on
 * its stdin is answered with { batches, commits, loop }: the commit batches landed so far and the
 * commits they held (group commit seen from inside), and the event loop's delay since the last
 * such line (p50, p99, max in ms, 1 ms resolution): what every other request of the process
 * waited behind the write path. With PROFILE, the
 * CPU profile from the report to the exit is written to that file: the vault's first build,
 * before it, would be most of a whole-process profile.
 */
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { createInterface } from 'node:readline';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { CommitBatch } from '../../dist/vault-store/commit-batch.js';
import { loadConfig } from '../../dist/server/config.js';
import { startServer } from '../../dist/server/server.js';

const [data, pagePath, profileFile] = process.argv.slice(2);
const landed = { batches: 0, commits: 0 };
const land = CommitBatch.prototype.land;
CommitBatch.prototype.land = async function (...args) {
  const events = await land.apply(this, args);
  if (events.length > 0) {
    landed.batches += 1;
    landed.commits += events.length;
  }
  return events;
};
const running = await startServer(loadConfig({ QUIRE_LOG_LEVEL: 'warn', ...process.env }, { data, port: '0' }));
await running.services.accounts.addUser('bench', 'pro');
const { key } = await running.services.accounts.createKey({ user: 'bench', name: 'bench', scope: 'write' });
for (const bucket of Object.keys(running.services.config.plans.pro.limits)) running.services.config.plans.pro.limits[bucket] = 1e12;
await fetch(`${running.url}/vault/page/${encodeURI(pagePath)}`, { headers: { authorization: `Bearer ${key}` } });
const profiler = profileFile ? new Session() : undefined;
if (profiler) {
  profiler.connect();
  await profiler.post('Profiler.enable');
  await profiler.post('Profiler.start');
}
process.stdout.write(JSON.stringify({ url: running.url, key }) + '\n');
const delay = monitorEventLoopDelay({ resolution: 1 });
delay.enable();
const ms = (ns) => Math.round(ns / 1e4) / 100;
createInterface({ input: process.stdin }).on('line', (line) => {
  if (line !== 'batches') return;
  const loop = { p50: ms(delay.percentile(50)), p99: ms(delay.percentile(99)), max: ms(delay.max) };
  delay.reset();
  process.stdout.write(JSON.stringify({ ...landed, loop }) + '\n');
});
process.stdin.on('end', async () => {
  await running.close();
  if (profiler) writeFileSync(profileFile, JSON.stringify((await profiler.post('Profiler.stop')).profile));
  process.exit(0);
});
