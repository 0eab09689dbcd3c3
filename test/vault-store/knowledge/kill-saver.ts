import { expect } from 'chai';
import { spawn } from 'node:child_process';
import { Knowledge } from '../../../vault-store/knowledge/knowledge.js';
import { Vault } from '../../../vault-store/vault.js';
import { builtScript } from '../../helpers/built-script.js';
import { tempDir } from '../../helpers/temp-dir.js';

const QUERIES = ['amber', 'kestrel heron', 'fjord*', '"cedar delta"', 'p7', 'granite -iris'];
const ALL_TASKS = { status: 'all', limit: 1000 } as const;
/** Every page with its front-matter field, by a query that reads them all. */
const BY_RANK = { limit: 1000, sort: [{ field: 'rank', dir: 'asc' as const }], fields: ['rank'] };

/** Starts the saver child and SIGKILLs it `afterMs` after it is open; resolves with the saves it reported. */
function saveUntilKilled(dir: string, indexDir: string, seed: number, afterMs: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [builtScript('test/fixtures/crash-saver.ts'), dir, indexDir, String(seed)], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => {
      if (!out.startsWith('ready')) setTimeout(() => child.kill('SIGKILL'), afterMs);
      out += chunk.toString();
    });
    child.on('error', reject);
    child.on('exit', () => resolve(out.split('\n').filter((l) => l === 'saved').length));
  });
}

/**
 * Kills a child that saves the index in a loop at a random moment up to `maxDelayMs` after it
 * opened, `rounds` times; after each kill the index reopens from the last snapshot the child
 * completed (never a rebuild: a torn save must not have touched it) and answers exactly as an
 * index rebuilt from scratch: searches, page metas, tasks and front-matter fields.
 */
export async function killSavesAndCompare(rounds: number, maxDelayMs: number): Promise<void> {
  const vault = tempDir('quire-vault-');
  const index = tempDir('quire-index-');
  try {
    for (let round = 1; round <= rounds; round++) {
      const afterMs = 50 + Math.floor(Math.random() * (maxDelayMs - 50));
      const saves = await saveUntilKilled(vault.path, index.path, round, afterMs);
      const opened = await Vault.open(vault.path);
      const recovered = await Knowledge.open(opened, { indexDir: index.path, persistDelayMs: false });
      const fresh = tempDir('quire-index-');
      const rebuilt = await Knowledge.open(opened, { indexDir: fresh.path, persistDelayMs: false });
      try {
        const why = `round ${round}, killed ${afterMs} ms after open, after ${saves} saves`;
        expect(recovered.loadedFrom, why).to.not.equal('rebuilt');
        expect(recovered.indexedCommit, why).to.equal(opened.head);
        for (const q of QUERIES) expect(recovered.search(q).results, `${why}: ${q}`).to.deep.equal(rebuilt.search(q).results);
        expect([...recovered.metas.keys()].sort(), why).to.deep.equal([...rebuilt.metas.keys()].sort());
        expect(recovered.tasks(ALL_TASKS), why).to.deep.equal(rebuilt.tasks(ALL_TASKS));
        expect(await recovered.query(BY_RANK, () => true, 5000), why).to.deep.equal(await rebuilt.query(BY_RANK, () => true, 5000));
      } finally {
        await recovered.close();
        await rebuilt.close();
        fresh.cleanup();
      }
    }
  } finally {
    vault.cleanup();
    index.cleanup();
  }
}
