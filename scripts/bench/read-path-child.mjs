/**
 * One side of the read-path bench, run from the compiled code in dist/ as `npm start` runs
 * it: `quire DATA` starts the real server on the vault in DATA (user and key created, limits
 * raised, vault opened and indexed before it reports), `bare` an Express app answering the
 * same JSON bodies (read from a file, one route per kind, by index), the ceiling the issue
 * compares with. Prints { url, key } and
 * lives until its stdin closes.
 */
import express from 'express';
import { readFileSync } from 'node:fs';
import { loadConfig } from '../../dist/server/config.js';
import { startServer } from '../../dist/server/server.js';

const [mode, data, pagePath, query] = process.argv.slice(2);

async function quire() {
  const running = await startServer(loadConfig({ QUIRE_WATCH: 'false', QUIRE_LOG_LEVEL: 'warn' }, { data, port: '0' }));
  await running.services.accounts.addUser('bench', 'pro');
  const { key } = await running.services.accounts.createKey({ user: 'bench', name: 'bench', scope: 'read' });
  for (const bucket of Object.keys(running.services.config.plans.pro.limits)) running.services.config.plans.pro.limits[bucket] = 1e12;
  const headers = { authorization: `Bearer ${key}` };
  // The bare twin answers with exactly these bodies.
  const page = await (await fetch(`${running.url}/vault/page/${encodeURI(pagePath)}`, { headers })).json();
  const search = await (await fetch(`${running.url}/vault/search?q=${encodeURIComponent(query)}&limit=10`, { headers })).json();
  return { url: running.url, key, page, search };
}

async function bare() {
  // The bodies Quire gave for the same pages and queries, in the same order: like for like.
  const { pages, searches } = JSON.parse(readFileSync(pagePath, 'utf8'));
  const app = express();
  app.get('/page/:i', (req, res) => void res.json(pages[Number(req.params.i)]));
  app.get('/search/:i', (req, res) => void res.json(searches[Number(req.params.i)]));
  const server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  return { url: `http://127.0.0.1:${server.address().port}` };
}

process.stdout.write(JSON.stringify(mode === 'quire' ? await quire() : await bare()) + '\n');
process.stdin.resume();
process.stdin.on('end', () => process.exit(0));
