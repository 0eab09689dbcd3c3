/**
 * Structured queries (`Knowledge.query`, issue 15) on the seeded vaults of the scale benches
 * (`--sizes 10k,100k`, default 100k; committed once under bench-data/scale/, copied to a temp
 * folder here): a `where` on one front-matter field within a folder, a full-vault query with a
 * sort, a tag query, and what the fields index costs: its heap after a collection and the time
 * to extract and file every page's fields (the front-matter is parsed by the build anyway), next
 * to the whole build's time and heap, and the time to parse its saved section (first query after
 * a warm open). Run with `npm run bench -- query` (node --expose-gc).
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FieldIndex } from '../../../vault-store/knowledge/fields/field-index.js';
import { pageFields } from '../../../vault-store/knowledge/fields/page-fields.js';
import { Knowledge } from '../../../vault-store/knowledge/knowledge.js';
import type { QueryInput } from '../../../vault-store/knowledge/query/run-query.js';
import { readFrontmatter } from '../../../vault-store/markdown/frontmatter.js';
import { Vault } from '../../../vault-store/vault.js';
import { round, summarize } from '../fixture.js';
import { savedCopy } from '../saved-copy.js';
import { copyTree, SCALE_DIR, scaleVault } from '../scale-vault.js';

/** Minutes at 100k pages (the build alone): only when named. */
export const explicitOnly = true;

const RUNS = 15;
const decoder = new TextDecoder();

function held(): number {
  global.gc?.();
  global.gc?.();
  const { heapUsed, external } = process.memoryUsage();
  return heapUsed + external;
}

const mb = (bytes: number) => round(bytes / 2 ** 20, 1);

/**
 * Wall time and this process's CPU time per run, in ms: on a shared machine the wall time
 * holds other processes' turns, the CPU time only the query's own work.
 */
async function timed(
  run: () => Promise<unknown>,
  n = RUNS,
): Promise<{ wall: ReturnType<typeof summarize>; cpu: ReturnType<typeof summarize> }> {
  const wall: number[] = [];
  const cpu: number[] = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    const c0 = process.cpuUsage();
    await run();
    const { user, system } = process.cpuUsage(c0);
    wall.push(performance.now() - t0);
    cpu.push((user + system) / 1000);
  }
  return { wall: summarize(wall), cpu: summarize(cpu) };
}

/** What the fields index adds to a build: extraction and filing timed, heap after a collection. */
async function fieldCost(vault: Vault): Promise<Record<string, number>> {
  const empty = held();
  const frontmatters: [string, Record<string, unknown>][] = [];
  for (const path of vault.manifest.pages()) {
    const text = decoder.decode(await vault.repo.objects.blob(vault.manifest.get(path)!.oid));
    frontmatters.push([path, readFrontmatter(text).data]);
  }
  const t0 = performance.now();
  const index = new FieldIndex();
  for (const [path, data] of frontmatters) index.set(path, pageFields(data));
  const buildMs = performance.now() - t0;
  frontmatters.length = 0;
  // What stays once the parsed front-matter is garbage: the index, and the short strings it shares.
  const heap = held() - empty;
  const saved = await savedCopy(index.sections(0).sections.fields);
  const serialiseMs = saved.ms;
  const t2 = performance.now();
  new FieldIndex({ whole: saved.section }).hasKey('created');
  const restoreMs = performance.now() - t2;
  return {
    fieldsBuildMs: round(buildMs),
    fieldsHeapMb: mb(heap),
    fieldsEstimateMb: mb(index.memoryBytes()),
    fieldsSectionMb: mb(saved.bytes),
    fieldsSerialiseMs: round(serialiseMs),
    fieldsRestoreMs: round(restoreMs),
  };
}

async function atSize(pages: number): Promise<Record<string, unknown>> {
  // The cached repository when there is one: scaleVault would first want the plain generated folder.
  const cached = join(SCALE_DIR, `vault-${pages}-git`);
  const pristine = existsSync(`${cached}.json`) ? cached : scaleVault(pages).pristine;
  const work = mkdtempSync(join(tmpdir(), 'quire-bench-query-'));
  try {
    const dir = join(work, 'vault');
    copyTree(pristine, dir);
    const vault = await Vault.open(dir);
    const base = held();
    const t0 = performance.now();
    const knowledge = await Knowledge.open(vault, { indexDir: join(work, 'index'), persistDelayMs: false });
    const buildMs = performance.now() - t0;
    // Built on first use; a query over links holds it.
    void knowledge.graph;
    const knowledgeHeap = held() - base;
    const all = () => true;
    const run = (input: Partial<QueryInput>) => () => knowledge.query({ limit: 50, ...input }, all, 10_000);

    const folder = vault.manifest.pages()[0].split('/')[0];
    const inFolder = await run({ from: folder, where: { '>=': [{ var: 'created' }, '2023-01-01'] } })();
    const whole = await run({ where: { '>=': [{ var: 'created' }, '2021-06-01'] }, sort: [{ field: 'created', dir: 'desc' }] })();
    const result: Record<string, unknown> = {
      pages,
      buildS: round(buildMs / 1000, 1),
      knowledgeHeapMb: mb(knowledgeHeap),
      knowledgeEstimateMb: mb(knowledge.memoryBytes()),
      folder: { name: folder, matches: inFolder.total },
      fieldOnFolderMs: await timed(run({ from: folder, where: { '>=': [{ var: 'created' }, '2023-01-01'] } })),
      wholeVaultSortedMs: await timed(
        run({ where: { '>=': [{ var: 'created' }, '2021-06-01'] }, sort: [{ field: 'created', dir: 'desc' }] }),
      ),
      wholeVaultMatches: whole.total,
      wholeVaultSortOnlyMs: await timed(run({ sort: [{ field: 'title' }], fields: [] })),
      tagMs: await timed(run({ from: `#${knowledge.metas.values().next().value!.tags[0] ?? 'x'}`, sort: [{ field: 'created' }] })),
    };
    await knowledge.close();
    Object.assign(result, await fieldCost(vault));
    const fieldsMs = result.fieldsBuildMs as number;
    result.fieldsShareOfBuild = round(fieldsMs / buildMs, 3);
    result.fieldsShareOfHeap = round(
      (result.fieldsHeapMb as number) / ((result.knowledgeHeapMb as number) - (result.fieldsHeapMb as number)),
      3,
    );
    return result;
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

export default async function (options: string[]): Promise<Record<string, unknown>> {
  const at = options.indexOf('--sizes');
  const sizes = (at >= 0 ? options[at + 1] : '100k').split(',').map((s) => Number(s.replace(/k$/, '000')));
  const results: Record<string, unknown> = {};
  for (const pages of sizes) results[`${pages}`] = await atSize(pages);
  return results;
}
