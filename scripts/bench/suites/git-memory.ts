/**
 * What the git layer holds in memory for a large vault (issue 17, goal 1: the save peak at
 * 100k sits on what the writes before it loaded), in this process, on a copy of the scale
 * bench's committed vault (`npm run bench -- scale --sizes 100k` makes it):
 * - `.git/index`: heap + array buffers after GC held by a GitIndex once loaded (its first
 *   update) and after WRITES more single-path updates, and the time of one update (median);
 * - trees: the same, held by a TreeStore after the scale bench's burst of edits (one page in
 *   each of WRITES folders, paths[(i * 37) % n] as scale-size.ts picks them), and the time of
 *   one edit's tree rewrite (median).
 *
 *   npm run bench -- git-memory [--pages 100000] [--writes 50]
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { GitIndex } from '../../../vault-store/git/index-file.js';
import { ObjectReader } from '../../../vault-store/git/object-reader.js';
import { PendingObjects } from '../../../vault-store/git/pending-objects.js';
import { TreeStore } from '../../../vault-store/git/tree-store.js';
import { round, summarize } from '../fixture.js';
import { copyTree, scaleVault } from '../scale-vault.js';

/** Minutes the first time: it needs the 100k scale vault, generated and committed once. */
export const explicitOnly = true;

const gc = globalThis.gc ?? (() => undefined);

/** Heap and array buffers after two full collections, in MB. */
function heldMb(): number {
  gc();
  gc();
  const m = process.memoryUsage();
  return (m.heapUsed + m.arrayBuffers) / 2 ** 20;
}

const oid = () => randomBytes(20).toString('hex');

async function indexMemory(dir: string, paths: string[], writes: number) {
  const base = heldMb();
  const index = new GitIndex({ gitdir: join(dir, '.git') });
  const edit = async (i: number) => {
    const path = paths[(i * 37) % paths.length];
    writeFileSync(join(dir, path), `edit ${i}\n`);
    const started = performance.now();
    await index.update([{ path, oid: oid(), size: `edit ${i}\n`.length }], dir);
    return performance.now() - started;
  };
  const loadMs = await edit(0);
  const loaded = heldMb() - base;
  const times: number[] = [];
  for (let i = 1; i <= writes; i++) times.push(await edit(i));
  const afterWrites = heldMb() - base;
  return {
    load_and_first_update_ms: round(loadMs),
    held_loaded_mb: round(loaded),
    held_after_writes_mb: round(afterWrites),
    update_ms: summarize(times),
  };
}

async function treeMemory(dir: string, paths: string[], writes: number) {
  const gitdir = join(dir, '.git');
  const head = execFileSync('git', ['rev-parse', 'HEAD^{tree}'], { cwd: dir, encoding: 'utf8' }).trim();
  const base = heldMb();
  const pending = new PendingObjects();
  const objects = new ObjectReader(gitdir, pending);
  const trees = new TreeStore(
    (t) => objects.tree(t),
    (body) => pending.add('tree', body),
  );
  let root = head;
  const times: number[] = [];
  for (let i = 0; i < writes; i++) {
    const started = performance.now();
    root = await trees.apply(root, [{ path: paths[(i * 37) % paths.length], oid: oid() }]);
    times.push(performance.now() - started);
  }
  const held = heldMb() - base;
  // The objects written meanwhile are the batch's, not the cache's: dropped before measuring again.
  await pending.flush(gitdir, objects);
  return {
    held_mb: round(held),
    held_without_pending_mb: round(heldMb() - base),
    apply_ms: summarize(times),
    cached_bytes_mb: round(trees.cachedBytes / 2 ** 20),
  };
}

export default async function (args: string[] = []): Promise<Record<string, unknown>> {
  const { values } = parseArgs({ args, strict: false, options: { pages: { type: 'string' }, writes: { type: 'string' } } });
  const pages = Number(values.pages ?? 100_000);
  const writes = Number(values.writes ?? 50);
  const vault = scaleVault(pages);
  const dir = join(tmpdir(), `quire-git-memory-${process.pid}`);
  mkdirSync(dir, { recursive: true });
  // The repository without its working files: the index's entries are stat data, and the edited pages are written here.
  copyTree(join(vault.pristine, '.git'), join(dir, '.git'));
  for (const folder of new Set(vault.manifest.paths.map((p) => join(dir, p, '..')))) mkdirSync(folder, { recursive: true });
  try {
    return {
      pages,
      writes,
      index: await indexMemory(dir, vault.manifest.paths, writes),
      trees: await treeMemory(dir, vault.manifest.paths, writes),
    };
  } finally {
    execFileSync('rm', ['-rf', dir]);
  }
}
