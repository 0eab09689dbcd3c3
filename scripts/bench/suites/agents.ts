/**
 * The agent layer on the 10k-page vault: context packs (4000 tokens) and the guide built
 * in-process over the knowledge index, and the proposal round trip (create, get with
 * diffs, approve) through the write queue.
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { buildContextPack } from '../../../vault-store/context/context-pack.js';
import { buildGuide, guideSummary } from '../../../vault-store/context/guide.js';
import { knowledgeSource } from '../../../vault-store/context/knowledge-source.js';
import { Knowledge } from '../../../vault-store/knowledge/knowledge.js';
import { Pages } from '../../../vault-store/pages.js';
import { Proposals } from '../../../vault-store/proposals/proposals.js';
import { Vault } from '../../../vault-store/vault.js';
import { BENCH_DIR, summarize } from '../fixture.js';
import { gitBenchVault } from '../git-vault.js';

const author = { name: 'bench', email: 'bench@quire.invalid', trailers: { 'Quire-Agent': 'bench' } };
const everything = () => true;

async function timed<T>(samples: number[], run: () => Promise<T> | T): Promise<T> {
  const t = performance.now();
  const result = await run();
  samples.push(performance.now() - t);
  return result;
}

export default async function (): Promise<Record<string, unknown>> {
  const { dir, manifest } = gitBenchVault('agents');
  const indexDir = join(BENCH_DIR, 'agents-index');
  rmSync(indexDir, { recursive: true, force: true });
  const vault = await Vault.open(dir);
  const knowledge = await Knowledge.open(vault, { indexDir, persistDelayMs: false });
  const pages = new Pages(vault);
  const paths = vault.manifest.pages();

  const guideMs: number[] = [];
  for (let i = 0; i < 20; i++) {
    await timed(guideMs, () =>
      buildGuide({ pages: paths, tagsOf: (p) => knowledge.metas.get(p)?.tags ?? [], mirrors: [], caller: [], proposeOnly: false }),
    );
  }

  const packMs: number[] = [];
  let maxTokens = 0;
  let pagesPerPack = 0;
  const source = knowledgeSource(pages, knowledge, everything, guideSummary({ pages: paths }));
  for (let i = 0; i < 50; i++) {
    const topic = `${manifest.vocab[(i * 13) % 2000]} ${manifest.vocab[(i * 31) % 5000]}`;
    const pack = await timed(packMs, () => buildContextPack(source, { topic, maxTokens: 4000 }));
    maxTokens = Math.max(maxTokens, pack.tokens);
    pagesPerPack += pack.pages.length / 50;
  }

  const proposals = new Proposals(vault);
  const createMs: number[] = [];
  const getMs: number[] = [];
  const approveMs: number[] = [];
  for (let i = 0; i < 30; i++) {
    const path = paths[(i * 331) % paths.length];
    const current = await pages.read(path);
    const content = current.content.replace(/\n\n/, `\n\nEdited by proposal ${i}.\n\n`);
    const p = await timed(createMs, () =>
      proposals.create(author, { title: `Edit ${i}`, rationale: 'bench', changes: [{ path, content, base_hash: current.hash }] }),
    );
    await timed(getMs, () => proposals.get(p.id));
    await timed(approveMs, () => proposals.approve(author, p.id));
  }
  const listMs: number[] = [];
  for (let i = 0; i < 10; i++) await timed(listMs, () => proposals.list());
  await knowledge.close();

  return {
    guide_ms: summarize(guideMs),
    context_pack_4000_ms: summarize(packMs),
    context_pack_max_tokens: maxTokens,
    context_pack_pages_avg: Math.round(pagesPerPack * 10) / 10,
    proposal_create_ms: summarize(createMs),
    proposal_get_ms: summarize(getMs),
    proposal_approve_ms: summarize(approveMs),
    proposal_list_30_ms: summarize(listMs),
  };
}
