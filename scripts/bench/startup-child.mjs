/**
 * The search bench's start-up and memory probe, run in a fresh process from the compiled
 * code in dist/ as `npm start` runs it: under tsx the loader alone holds ~45 MB and slows
 * every import, which is not what a server pays. run.ts builds dist/ before any suite.
 *
 * Opens the vault and its Knowledge from the persisted index, answers one query, and
 * prints { vaultOpenMs, startupMs, rssMb, loadedFrom } as JSON.
 */
import { Knowledge } from '../../dist/vault-store/knowledge/knowledge.js';
import { Vault } from '../../dist/vault-store/vault.js';

const [dir, indexDir] = process.argv.slice(2);
const started = performance.now();
const vault = await Vault.open(dir);
const vaultOpenMs = performance.now() - started;
const knowledge = await Knowledge.open(vault, { indexDir, persistDelayMs: false });
knowledge.search('zebracorn');
const startupMs = performance.now() - started;
// Twice: after a single forced GC the RSS still holds ~80 MB of freed start-up garbage.
global.gc();
global.gc();
process.stdout.write(JSON.stringify({ vaultOpenMs, startupMs, rssMb: process.memoryUsage().rss / 1e6, loadedFrom: knowledge.loadedFrom }));
process.exit(0);
