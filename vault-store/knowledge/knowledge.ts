import { join } from 'node:path';
import { diffPages } from '../history/tree-diff.js';
import { silentLog, type Log } from '../log.js';
import { isPagePath } from '../paths.js';
import { DEFAULT_TIMING } from '../timing.js';
import type { CommitEvent, Vault } from '../vault.js';
import { FieldIndex } from './fields/field-index.js';
import { pageFields } from './fields/page-fields.js';
import { ask, retrievePassages, type AskAnswer, type AskInput, type Passage } from './ask.js';
import { LinkGraph } from './graph/link-graph.js';
import { pageMeta, type PageMeta } from './page-meta.js';
import { promises as fsp } from 'node:fs';
import { jsonArrayChunks, parseSection, SavedSection, SnapshotStore, type PreparedSnapshot, type Snapshot } from './persist.js';
import { BodyStore } from './search/body-store.js';
import { restoreIndex, snapshotIndex } from './search/index-snapshot.js';
import type { SearchHit, SearchOptions } from './search/run-search.js';
import { SearchIndex } from './search/search-index.js';
import { SaveTimer } from './save-timer.js';
import { similar, type SimilarHit, type SimilarInput } from './similar.js';
import { PageDates } from './query/page-dates.js';
import { runQuery, type QueryInput, type QueryPage } from './query/run-query.js';
import { TaskIndex } from './tasks/task-index.js';
import type { TaskList, TaskQuery } from './tasks/task-query.js';

export interface KnowledgeOptions {
  /** Folder for this vault's persisted index (created when missing). */
  indexDir: string;
  /** Longest time from a commit to the save of the index that holds it; `false` = only on close. */
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

/** The index's folder inside `indexDir`; `knowledge.idx` beside it is the single file of format 5 and before. */
const INDEX_FOLDER = 'knowledge';
const OLD_INDEX_FILE = 'knowledge.idx';
const READ_BATCH = 64;
/** Sections a warm open leaves on disk until first asked for: no search reads them. */
const LATER = ['metas', 'fields', 'tasks'];

/**
 * Derived state that is swapped as one piece on rebuild. What search does not need is made
 * when first asked for, not at open, so a restarted server answers its first search sooner:
 * the link graph, built from the metas (2 of 2.6 s of a warm start at 10k pages), and the
 * metas themselves, left on disk as their saved section until read and parsed (0.9 s at
 * 100k). Until the graph exists changes go to the metas only; a graph built later from them
 * equals one kept current.
 */
interface State {
  metas: Map<string, PageMeta> | SavedSection;
  index: SearchIndex;
  graph?: LinkGraph;
  /** Front-matter fields for queries. */
  fields: FieldIndex;
  tasks: TaskIndex;
}

function metasOf(state: State): Map<string, PageMeta> {
  if (state.metas instanceof SavedSection) state.metas = new Map(parseSection<PageMeta[]>(state.metas.read()).map((m) => [m.path, m]));
  return state.metas;
}

/** A save taken inside the write queue, to be written outside it. */
interface Capture {
  state: State;
  commit: string;
  snapshot: PreparedSnapshot;
}

/**
 * Everything a vault knows about its pages besides their bytes: metadata, the search
 * index with its term statistics, and the link graph. Derived from git and disposable:
 * persisted tagged with the commit it reflects, caught up from the tree diff when HEAD
 * moved, rebuilt when in doubt. Kept current inside the write path via `onCommit`.
 */
export class Knowledge {
  private readonly saves: SaveTimer;
  private closed = false;
  /** What the folder on disk holds: nothing to write when it is still current. */
  private saved: { state?: State; commit?: string } = {};
  /** Saves, one after another; also the retirement of a replaced state's files. */
  private saving: Promise<void> = Promise.resolve();
  private healing = false;
  private readonly dates: PageDates;

  private constructor(
    private readonly vault: Vault,
    private readonly store: SnapshotStore,
    persistDelayMs: number | false,
    private state: State,
    private commit: string,
    readonly loadedFrom: LoadSource,
    private readonly log: Log,
  ) {
    this.dates = new PageDates(vault);
    this.saves = new SaveTimer(persistDelayMs, () =>
      this.persist().catch((err) => this.log.error({ err: (err as Error).message }, 'persisting the index failed')),
    );
    store.onBadSection = () => this.heal('a saved index section failed its check');
  }

  static async open(vault: Vault, options: KnowledgeOptions): Promise<Knowledge> {
    await fsp.rm(join(options.indexDir, OLD_INDEX_FILE), { force: true });
    return vault.exclusive(async () => {
      const { store, snapshot } = await SnapshotStore.open(join(options.indexDir, INDEX_FOLDER), { later: LATER });
      const { state, source } = await load(vault, store.dir, snapshot);
      const knowledge = new Knowledge(
        vault,
        store,
        options.persistDelayMs ?? DEFAULT_TIMING.indexPersistDelayMs,
        state,
        vault.head,
        source,
        options.log ?? silentLog,
      );
      await knowledge.adopt(state);
      vault.onCommit((event) => knowledge.follow(event));
      if (source === 'persisted') knowledge.saved = { state, commit: vault.head };
      else await knowledge.write(await knowledge.capture());
      return knowledge;
    });
  }

  get metas(): ReadonlyMap<string, PageMeta> {
    return metasOf(this.state);
  }

  get index(): SearchIndex {
    return this.state.index;
  }

  get graph(): LinkGraph {
    return (this.state.graph ??= LinkGraph.build(metasOf(this.state).values()));
  }

  /** The commit the derived data reflects. */
  get indexedCommit(): string {
    return this.commit;
  }

  /** Estimated heap bytes of the derived data: search index, link graph, page metadata and tasks. */
  memoryBytes(): number {
    const { index, graph, metas } = this.state;
    let bytes = index.memoryBytes() + (graph?.memoryBytes() ?? 0) + this.state.fields.memoryBytes() + this.state.tasks.memoryBytes();
    if (metas instanceof SavedSection) return bytes;
    for (const meta of metas.values()) bytes += metaBytes(meta);
    return bytes;
  }

  search(query: string, options: SearchOptions = {}): SearchResultSet {
    return { query, ...this.state.index.search(query, options), indexed_commit: this.commit };
  }

  similar(input: SimilarInput, limit = 10, visible?: (path: string) => boolean): { results: SimilarHit[]; indexed_commit: string } {
    return { results: similar(this.state.index, input, limit, visible), indexed_commit: this.commit };
  }

  /** Task items across the vault (see `TaskQuery`), tagged with the commit they reflect. */
  tasks(query: TaskQuery): TaskList & { indexed_commit: string } {
    return { ...this.state.tasks.query(query), indexed_commit: this.commit };
  }

  ask(input: AskInput): AskAnswer & { indexed_commit: string } {
    return { ...ask(this.state.index, input), indexed_commit: this.commit };
  }

  /** One page of a structured query over front-matter fields, tags and links (see `runQuery`). */
  async query(input: QueryInput, visible: (path: string) => boolean, budgetMs: number): Promise<QueryPage & { indexed_commit: string }> {
    const { commit, state } = this;
    const parts = { metas: metasOf(state), fields: state.fields, graph: () => this.graph, dates: this.dates, visible };
    return { ...(await runQuery(input, parts, budgetMs)), indexed_commit: commit };
  }

  /** The passages ask would quote, for an LLM to answer from. */
  passages(input: AskInput): { passages: Passage[]; pagesUsed: number } {
    return retrievePassages(this.state.index, input);
  }

  /** Rebuilds everything from HEAD inside the write queue, swaps it in and saves it; `progress` hears of pages read. */
  async rebuild(progress?: Progress): Promise<{ pages: number; ms: number }> {
    const started = performance.now();
    await this.vault.exclusive(async () => {
      if (this.closed) return;
      const previous = this.state;
      const state = await buildFromHead(this.vault, this.store.dir, progress);
      await this.adopt(state);
      [this.state, this.commit] = [state, this.vault.head];
      // A save in flight may still be writing from the previous state's files.
      this.saving = this.saving.then(() => previous.index.bodies.close()).catch(() => undefined);
    });
    await this.persist();
    return { pages: this.state.index.size, ms: Math.round(performance.now() - started) };
  }

  /**
   * Writes the index to disk now. What is saved is taken inside the write queue, so no
   * commit lands mid-snapshot; the files are written outside it, so writes go on meanwhile.
   * Must not be awaited from inside the queue.
   */
  persist(): Promise<void> {
    const run = this.saving.then(async () => {
      const capture = await this.vault.exclusive(() => this.capture());
      if (capture) await this.write(capture);
    });
    this.saving = run.catch(() => undefined);
    return run;
  }

  /** Saves what is not saved yet and closes the files; not from inside the write queue. */
  async close(): Promise<void> {
    this.saves.stop();
    if (this.closed) return;
    this.closed = true;
    await this.persist();
    await this.saving;
    await this.state.index.bodies.close();
  }

  private async follow(event: CommitEvent): Promise<void> {
    if (this.closed) return;
    this.dates.follow(event);
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
    this.saves.arm();
  }

  /** Binds a state's bodies to the index folder, and a body failing its check to a rebuild. */
  private async adopt(state: State): Promise<void> {
    await state.index.bodies.attach(this.store.dir, () => this.heal('a stored page body failed its check'));
  }

  /** Rebuilds the index in the background (once at a time) after part of the saved one failed its check. */
  private heal(why: string): void {
    this.log.error({ commit: this.commit }, `${why}; rebuilding the index`);
    if (this.healing) return;
    this.healing = true;
    void this.rebuild()
      .catch((err) => this.log.error({ err: (err as Error).message }, 'rebuilding the index failed'))
      .finally(() => (this.healing = false));
  }

  /**
   * Inside the queue: the index's sections (fresh bytes, checksummed here), the list of page
   * metas (serialised later: a meta is replaced on change, never edited), the bodies written
   * since the last save appended and their table copied. A compaction, rare, copies the
   * live bodies here too.
   */
  private async capture(): Promise<Capture | undefined> {
    if (this.saved.state === this.state && this.saved.commit === this.commit) return undefined;
    const { state, commit } = this;
    const sections = snapshotIndex(state.index);
    if (state.metas instanceof SavedSection) sections.metas = state.metas;
    else {
      const metas = [...state.metas.values()];
      sections.metas = () => jsonArrayChunks(metas);
    }
    sections.fields = state.fields.section();
    sections.tasks = state.tasks.section();
    const { table, ...append } = await state.index.bodies.save();
    sections['body-table'] = table;
    return { state, commit, snapshot: this.store.prepare(commit, sections, append) };
  }

  /**
   * Outside the queue. Safe because nothing written here changes after the capture: the
   * sections are bytes of their own or immutable metas, and the body file only grows past
   * the size recorded. Saves run one at a time (`saving`).
   */
  private async write(capture: Capture | undefined): Promise<void> {
    if (!capture) return;
    await this.saves.timed(() => this.store.write(capture.snapshot));
    this.saved = { state: capture.state, commit: capture.commit };
  }
}

/** One page's metadata: the object and its map entry, its strings (one byte a character, plus headers). */
function metaBytes(meta: PageMeta): number {
  let bytes = 300 + meta.path.length + meta.title.length;
  for (const s of [...meta.tags, ...meta.aliases]) bytes += 24 + s.length;
  return bytes + meta.packedLinks.length;
}

async function load(vault: Vault, dir: string, snapshot: Snapshot | undefined): Promise<{ state: State; source: LoadSource }> {
  if (snapshot?.append) {
    const bodies = await BodyStore.open(dir, snapshot.append, snapshot.sections['body-table']).catch(() => undefined);
    try {
      if (!bodies) throw new Error('no bodies');
      const { metas, fields, tasks } = snapshot.later;
      if (!metas || !fields || !tasks) throw new Error('a section is missing');
      const state: State = {
        metas,
        index: restoreIndex(snapshot.sections, bodies),
        fields: new FieldIndex(fields),
        tasks: new TaskIndex(tasks),
      };
      if (snapshot.commit === vault.head) return { state, source: 'persisted' };
      const { tree: before } = await vault.repo.objects.commit(snapshot.commit);
      const { tree: after } = await vault.repo.objects.commit(vault.head);
      for (const change of await diffPages(vault.repo.trees, before, after)) await applyChange(vault, state, change.path, change.hash);
      return { state, source: 'incremental' };
    } catch {
      // Unreadable, inconsistent or from a commit this repo lacks: rebuild.
      await bodies?.close();
    }
  }
  return { state: await buildFromHead(vault, dir), source: 'rebuilt' };
}

/**
 * The bodies go to a file of `dir` as they are read, a few MB at a time: held until the
 * first save, they were the bulk of a build's peak memory. Whoever adopts the state sets
 * what a failed body check does.
 */
async function buildFromHead(vault: Vault, dir: string, progress?: Progress): Promise<State> {
  const bodies = new BodyStore();
  await bodies.attach(dir, () => undefined);
  const state = {
    metas: new Map<string, PageMeta>(),
    index: new SearchIndex([], undefined, undefined, bodies),
    fields: new FieldIndex(),
    tasks: new TaskIndex(),
  };
  const pages = vault.manifest.pages();
  try {
    for (let i = 0; i < pages.length; i += READ_BATCH) {
      const batch = pages.slice(i, i + READ_BATCH).map((path) => ({ path, oid: vault.manifest.get(path)!.oid }));
      const blobs = await Promise.all(batch.map((p) => vault.repo.objects.blob(p.oid)));
      batch.forEach(({ path, oid }, j) => addPage(state, path, oid, blobs[j]));
      progress?.(i + batch.length, pages.length);
    }
  } catch (err) {
    await bodies.close();
    throw err;
  }
  return state;
}

async function applyChange(vault: Vault, state: State, path: string, oid: string | null): Promise<void> {
  if (oid === null) {
    metasOf(state).delete(path);
    state.index.remove(path);
    state.fields.delete(path);
    state.graph?.remove(path);
    state.tasks.delete(path);
    return;
  }
  if (metasOf(state).get(path)?.hash === oid) return;
  const meta = addPage({ ...state, metas: metasOf(state) }, path, oid, await vault.repo.objects.blob(oid));
  state.graph?.upsert(meta);
}

function addPage(state: State & { metas: Map<string, PageMeta> }, path: string, oid: string, bytes: Uint8Array): PageMeta {
  const { body, frontmatter, tasks, ...meta } = pageMeta(path, oid, bytes);
  state.metas.set(path, meta);
  state.index.upsert({ path, title: meta.title, hash: oid, tags: meta.tags, body });
  state.fields.set(path, meta.frontmatterError ? undefined : pageFields(frontmatter));
  state.tasks.set(path, tasks);
  return meta;
}
