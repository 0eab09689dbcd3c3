import { join } from 'node:path';
import { diffPages } from '../history/tree-diff.js';
import { silentLog, type Log } from '../log.js';
import { isPagePath } from '../paths.js';
import { DEFAULT_TIMING } from '../timing.js';
import type { CommitEvent, Vault } from '../vault.js';
import { ask, retrievePassages, type AskAnswer, type AskInput, type Passage } from './ask.js';
import { LinkGraph } from './graph/link-graph.js';
import { pageMeta, type PageMeta } from './page-meta.js';
import { promises as fsp } from 'node:fs';
import { jsonSection, parseSection, readSnapshot, writeSnapshot } from './persist.js';
import { attachBodies, restoreIndex, snapshotIndex } from './search/index-snapshot.js';
import type { SearchHit, SearchOptions } from './search/run-search.js';
import { SearchIndex } from './search/search-index.js';
import { similar, type SimilarHit, type SimilarInput } from './similar.js';

export interface KnowledgeOptions {
  /** Folder for this vault's persisted index (created when missing). */
  indexDir: string;
  /** Quiet time after a commit before the index is written to disk; `false` = only on close. */
  persistDelayMs?: number | false;
  /** Where a failed background write of the index is reported. */
  log?: Log;
}

/** How the derived data came to be at open: reloaded, caught up from a tree diff, or built. */
export type LoadSource = 'persisted' | 'incremental' | 'rebuilt';

export interface SearchResultSet {
  query: string;
  results: SearchHit[];
  suggestion?: string;
  indexed_commit: string;
}

/** Told how far a long task has come: `done` of `total` units. */
export type Progress = (done: number, total: number) => void;

const INDEX_FILE = 'knowledge.idx';
const READ_BATCH = 64;

/** Derived state that is swapped as one piece on rebuild. */
interface State {
  metas: Map<string, PageMeta>;
  index: SearchIndex;
  graph: LinkGraph;
}

/**
 * Everything a vault knows about its pages besides their bytes: metadata, the search
 * index with its term statistics, and the link graph. Derived from git and disposable:
 * persisted tagged with the commit it reflects, caught up from the tree diff when HEAD
 * moved, rebuilt when in doubt. Kept current inside the write path via `onCommit`.
 */
export class Knowledge {
  private timer: NodeJS.Timeout | undefined;
  private closed = false;
  /** What the file on disk holds: nothing to write when it is still current. */
  private saved: { state?: State; commit?: string } = {};

  private constructor(
    private readonly vault: Vault,
    private readonly file: string,
    private readonly persistDelayMs: number | false,
    private state: State,
    private commit: string,
    readonly loadedFrom: LoadSource,
    private readonly log: Log,
  ) {}

  static async open(vault: Vault, options: KnowledgeOptions): Promise<Knowledge> {
    const file = join(options.indexDir, INDEX_FILE);
    return vault.exclusive(async () => {
      const { state, source } = await load(vault, file);
      const knowledge = new Knowledge(
        vault,
        file,
        options.persistDelayMs ?? DEFAULT_TIMING.indexPersistDelayMs,
        state,
        vault.head,
        source,
        options.log ?? silentLog,
      );
      vault.onCommit((event) => knowledge.follow(event));
      if (source === 'persisted') knowledge.saved = { state, commit: vault.head };
      else await knowledge.persistNow();
      return knowledge;
    });
  }

  get metas(): ReadonlyMap<string, PageMeta> {
    return this.state.metas;
  }

  get index(): SearchIndex {
    return this.state.index;
  }

  get graph(): LinkGraph {
    return this.state.graph;
  }

  /** The commit the derived data reflects. */
  get indexedCommit(): string {
    return this.commit;
  }

  /** Estimated heap bytes of the derived data: search index, link graph and page metadata. */
  memoryBytes(): number {
    const { index, graph, metas } = this.state;
    let bytes = index.memoryBytes() + graph.memoryBytes();
    for (const meta of metas.values()) bytes += metaBytes(meta);
    return bytes;
  }

  search(query: string, options: SearchOptions = {}): SearchResultSet {
    return { query, ...this.state.index.search(query, options), indexed_commit: this.commit };
  }

  similar(input: SimilarInput, limit = 10, visible?: (path: string) => boolean): { results: SimilarHit[]; indexed_commit: string } {
    return { results: similar(this.state.index, input, limit, visible), indexed_commit: this.commit };
  }

  ask(input: AskInput): AskAnswer & { indexed_commit: string } {
    return { ...ask(this.state.index, input), indexed_commit: this.commit };
  }

  /** The passages ask would quote, for an LLM to answer from. */
  passages(input: AskInput): { passages: Passage[]; pagesUsed: number } {
    return retrievePassages(this.state.index, input);
  }

  /** Rebuilds everything from HEAD inside the write queue and swaps it in; `progress` hears of pages read. */
  rebuild(progress?: Progress): Promise<{ pages: number; ms: number }> {
    return this.vault.exclusive(async () => {
      const started = performance.now();
      const previous = this.state;
      this.state = await buildFromHead(this.vault, progress);
      this.commit = this.vault.head;
      await previous.index.bodies.close();
      await this.persistNow();
      return { pages: this.state.index.size, ms: Math.round(performance.now() - started) };
    });
  }

  /** Writes the index to disk now (inside the queue, so no commit lands mid-snapshot). */
  persist(): Promise<void> {
    return this.vault.exclusive(() => this.persistNow());
  }

  async close(): Promise<void> {
    clearTimeout(this.timer);
    if (this.closed) return;
    this.closed = true;
    await this.vault.exclusive(async () => {
      await this.persistNow();
      await this.state.index.bodies.close();
    });
  }

  private async follow(event: CommitEvent): Promise<void> {
    if (this.closed) return;
    try {
      for (const change of event.changes) {
        if (isPagePath(change.path)) await applyChange(this.vault, this.state, change.path, change.oid);
      }
    } catch (err) {
      // Half-applied: queue a rebuild (it runs after this commit leaves the queue).
      void this.rebuild().catch(() => undefined);
      throw err;
    }
    this.commit = event.commit;
    this.schedulePersist();
  }

  private schedulePersist(): void {
    if (this.persistDelayMs === false) return;
    clearTimeout(this.timer);
    this.timer = setTimeout(
      () => void this.persist().catch((err) => this.log.error({ err: (err as Error).message }, 'persisting the index failed')),
      this.persistDelayMs,
    );
    this.timer.unref();
  }

  private async persistNow(): Promise<void> {
    if (this.saved.state === this.state && this.saved.commit === this.commit) return;
    const { state, commit } = this;
    const sections = snapshotIndex(state.index);
    sections.metas = jsonSection([...state.metas.values()]);
    const positions = await writeSnapshot(this.file, commit, sections);
    // Bodies now live in the file: drop the in-memory copies and read them from there.
    await attachBodies(state.index, await fsp.open(this.file, 'r'), sections, positions);
    this.saved = { state, commit };
  }
}

/** One page's metadata: the object and its map entry, its strings (one byte a character, plus headers). */
function metaBytes(meta: PageMeta): number {
  let bytes = 300 + meta.path.length + meta.title.length;
  for (const s of [...meta.tags, ...meta.aliases]) bytes += 24 + s.length;
  return bytes + meta.packedLinks.length;
}

async function load(vault: Vault, file: string): Promise<{ state: State; source: LoadSource }> {
  const snapshot = await readSnapshot(file);
  if (snapshot) {
    try {
      const metas = new Map(parseSection<PageMeta[]>(snapshot.sections.metas).map((m) => [m.path, m]));
      const state = {
        metas,
        index: restoreIndex(snapshot.sections, snapshot.handle, snapshot.positions),
        graph: LinkGraph.build(metas.values()),
      };
      if (snapshot.commit === vault.head) return { state, source: 'persisted' };
      const { tree: before } = await vault.repo.objects.commit(snapshot.commit);
      const { tree: after } = await vault.repo.objects.commit(vault.head);
      for (const change of await diffPages(vault.repo.trees, before, after)) await applyChange(vault, state, change.path, change.hash);
      return { state, source: 'incremental' };
    } catch {
      // Unreadable, from a commit this repo lacks, or FlexSearch changed shape: rebuild.
      await snapshot.handle.close();
    }
  }
  return { state: await buildFromHead(vault), source: 'rebuilt' };
}

async function buildFromHead(vault: Vault, progress?: Progress): Promise<State> {
  const metas = new Map<string, PageMeta>();
  const index = new SearchIndex();
  const pages = vault.manifest.pages();
  for (let i = 0; i < pages.length; i += READ_BATCH) {
    const batch = pages.slice(i, i + READ_BATCH).map((path) => ({ path, oid: vault.manifest.get(path)!.oid }));
    const blobs = await Promise.all(batch.map((p) => vault.repo.objects.blob(p.oid)));
    batch.forEach(({ path, oid }, j) => addPage(metas, index, path, oid, blobs[j]));
    progress?.(i + batch.length, pages.length);
  }
  return { metas, index, graph: LinkGraph.build(metas.values()) };
}

async function applyChange(vault: Vault, state: State, path: string, oid: string | null): Promise<void> {
  if (oid === null) {
    state.metas.delete(path);
    state.index.remove(path);
    state.graph.remove(path);
    return;
  }
  if (state.metas.get(path)?.hash === oid) return;
  const meta = addPage(state.metas, state.index, path, oid, await vault.repo.objects.blob(oid));
  state.graph.upsert(meta);
}

function addPage(metas: Map<string, PageMeta>, index: SearchIndex, path: string, oid: string, bytes: Uint8Array): PageMeta {
  const { body, ...meta } = pageMeta(path, oid, bytes);
  metas.set(path, meta);
  index.upsert({ path, title: meta.title, hash: oid, tags: meta.tags, body });
  return meta;
}
