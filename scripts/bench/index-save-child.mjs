/**
 * The index-save bench's probe, run in a fresh process from the compiled code in dist/.
 * `build`: opens Knowledge on an empty index folder (a full build and its first save).
 * `save`: opens it from the saved index, rewrites `pages` pages, then saves; the peak RSS
 * (VmHWM) is reset just before the save, so `savePeakMb` is the save's own peak.
 * Prints one JSON object.
 */
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { Knowledge } from '../../dist/vault-store/knowledge/knowledge.js';
import { Pages } from '../../dist/vault-store/pages.js';
import { Vault } from '../../dist/vault-store/vault.js';

const [dir, indexDir, mode, pagesText] = process.argv.slice(2);
const statusMb = (field) =>
  Number(
    /(\d+) kB/.exec(
      readFileSync('/proc/self/status', 'utf8')
        .split('\n')
        .find((l) => l.startsWith(field)),
    )[1],
  ) / 1024;
// Writing 5 to clear_refs resets VmHWM to the current RSS (Linux ≥ 4.0).
const resetPeak = () => writeFileSync('/proc/self/clear_refs', '5');
const settle = () => (global.gc(), global.gc(), resetPeak());

if (mode === 'build') rmSync(indexDir, { recursive: true, force: true });
const vault = await Vault.open(dir);
settle();
let started = performance.now();
const knowledge = await Knowledge.open(vault, { indexDir, persistDelayMs: false });
const out = { openMs: performance.now() - started, openPeakMb: statusMb('VmHWM'), loadedFrom: knowledge.loadedFrom };
if (mode === 'save') {
  const pages = new Pages(vault);
  const author = { name: 'bench', email: 'bench@quire.invalid' };
  for (const path of [...knowledge.metas.keys()].slice(0, Number(pagesText ?? 1))) {
    await pages.write(author, { path, content: `# Changed\n\nA page rewritten by the index-save bench at ${Date.now()}.\n` });
  }
  settle();
  out.rssBeforeSaveMb = statusMb('VmRSS');
  started = performance.now();
  await knowledge.persist();
  out.saveMs = performance.now() - started;
  out.savePeakMb = statusMb('VmHWM');
}
process.stdout.write(JSON.stringify(out));
process.exit(0);
