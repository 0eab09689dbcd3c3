/**
 * The server side of the write-load bench, run from the compiled code in dist/ as `npm start`
 * runs it, in its own process so the bench's clients do not share its event loop. Settings
 * come from the environment (QUIRE_WATCH, QUIRE_INDEX_PERSIST_MS, …) as for the real server.
 * `node write-load-child.mjs DATA PAGE` opens and indexes the vault of user "bench" in DATA
 * before it reports { url, key } (a write key, limits raised); it closes the server (queued
 * writes land, the index is saved) and exits when its stdin closes.
 */
import { loadConfig } from '../../dist/server/config.js';
import { startServer } from '../../dist/server/server.js';

const [data, pagePath] = process.argv.slice(2);
const running = await startServer(loadConfig({ QUIRE_LOG_LEVEL: 'warn', ...process.env }, { data, port: '0' }));
await running.services.accounts.addUser('bench', 'pro');
const { key } = await running.services.accounts.createKey({ user: 'bench', name: 'bench', scope: 'write' });
for (const bucket of Object.keys(running.services.config.plans.pro.limits)) running.services.config.plans.pro.limits[bucket] = 1e12;
await fetch(`${running.url}/vault/page/${encodeURI(pagePath)}`, { headers: { authorization: `Bearer ${key}` } });
process.stdout.write(JSON.stringify({ url: running.url, key }) + '\n');
process.stdin.resume();
process.stdin.on('end', () => void running.close().then(() => process.exit(0)));
