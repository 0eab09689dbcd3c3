import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { silentLog, type Log } from '../log.js';
import { isPagePath } from '../paths.js';
import { Slices } from '../slices.js';
import { DEFAULT_TIMING } from '../timing.js';
import type { CommitEvent, Vault } from '../vault.js';
import { ask, retrievePassages, type AskAnswer, type AskInput, type Passage } from './ask.js';
import { buildFromHead } from './build.js';
import type { Progress } from './build-snapshot.js';
import { LinkGraph } from './graph/link-graph.js';
import { applyChange, metasOf, stateSections, type State } from './knowledge-state.js';
import type { PageMeta } from './page-meta.js';
import { SnapshotStore, type PreparedSnapshot, type Written } from './persist.js';
import { SaveTimer } from './save-timer.js';
import { PageDates } from './query/page-dates.js';
import { runQuery, type QueryInput, type QueryPage } from './query/run-query.js';
import { restoreState, type LoadSource } from './restore-state.js';
import type { SearchHit, SearchOptions } from './search/run-search.js';
import type { SearchIndex } from './search/search-index.js';
import { similar, type SimilarHit, type SimilarInput } from './similar.js';
import type { TaskList, TaskQuery } from './tasks/task-query.js';

export type { Progress } from './build-snapshot.js';
export type { LoadSource } from './restore-state.js';

export interface KnowledgeOptions {
  /** Folder for this vault's persisted index (created when missing). */
  indexDir: string;
  /** Longest time from a commit to the save of the index that holds it; `false` = only on close. */
  persistDelayMs?: number | false;
  /** Where a failed background write of the index is reported. */
  log?: Log;
  /** Vaults with fewer pages build in the calling thread, not in a builder process (see build.ts); default 2,000. */
  builderMinPages?: number;
}

export interface SearchResultSet {
  query: string;
  results: SearchHit[];
  suggestion?: string;
  indexed_commit: string;
}

/** The index's folder inside `indexDir`; `knowledge.idx` beside it is the single file of format 5 and before. */
const INDEX_FOLDER = 'knowledge';
const OLD_INDEX_FILE = 'knowledge.idx';
/** Sections a warm open leaves on disk until first asked for: no search reads them. */
const LATER = ['metas', 'meta-changes', 'fields', 'field-changes', 'tasks', 'task-changes'];
/** Below this, a builder's start (~0.1 s, more from sources) costs more than the few MB a build in the thread leaves behind. */
const BUILDER_MIN_PAGES = 2000;

/** A save taken inside the write queue, to be written outside it. */
interface Capture {
  state: State;
  commit: string;
  snapshot: PreparedSnapshot;
  /** Run once it is written (see stateSections). */
  written: Written[];
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
    private store: SnapshotStore,
    persistDelayMs: number | false,
    private state: State,
    private commit: string,
    readonly loadedFrom: LoadSource,
    private readonly log: Log,
    private readonly builderMinPages: number,
  ) {
    this.dates = new PageDates(vault);
    this.saves = new SaveTimer(persistDelayMs, () =>
      this.persist().catch((err) => this.log.error({ err: (err as Error).message }, 'persisting the index failed')),
    );
    this.watch(store);
  }

  static async open(vault: Vault, options: KnowledgeOptions): Promise<Knowledge> {
    rmSync(join(options.indexDir, OLD_INDEX_FILE), { force: true });
    const dir = join(options.indexDir, INDEX_FOLDER);
    return vault.exclusive(async () => {
      const { store, snapshot } = await SnapshotStore.open(dir, { later: LATER });
      const restored = snapshot && (await restoreState(vault, dir, snapshot));
      const builderMinPages = options.builderMinPages ?? BUILDER_MIN_PAGES;
      const opened = restored
        ? { store, ...restored }
        : await built(vault, dir, builderMinPages).catch(async (err: unknown) => {
            // What the failed build wrote is named by no manifest.
            await SnapshotStore.open(dir);
            throw err;
          });
      const knowledge = new Knowledge(
        vault,
        opened.store,
        options.persistDelayMs ?? DEFAULT_TIMING.indexPersistDelayMs,
        opened.state,
        vault.head,
        restored?.source ?? 'rebuilt',
        options.log ?? silentLog,
        builderMinPages,
      );
      await knowledge.adopt(opened.state);
      vault.onCommit((event) => knowledge.follow(event));
      if (opened.source === 'persisted') knowledge.saved = { state: opened.state, commit: vault.head };
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
    if (!metas.loaded) return bytes;
    for (const meta of metas.map().values()) bytes += metaBytes(meta);
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

  /**
   * Rebuilds everything from HEAD inside the write queue, after any save under way (the
   * build writes a snapshot of its own), and swaps it in; `progress` hears of pages read.
   */
  async rebuild(progress?: Progress): Promise<{ pages: number; ms: number }> {
    const started = performance.now();
    const run = this.saving.then(() =>
      this.vault.exclusive(async () => {
        if (this.closed) return;
        const previous = { store: this.store, state: this.state };
        // The files the current state left on disk go with the new snapshot's open: a read of
        // one meanwhile answers VAULT_BUSY, as the state is being rebuilt, and starts nothing.
        previous.store.onBadSection = () => undefined;
        const { store, state, source } = await built(this.vault, this.store.dir, this.builderMinPages, progress).catch((err: unknown) => {
          this.watch(previous.store);
          throw err;
        });
        await this.adopt(state);
        [this.store, this.state, this.commit] = [store, state, this.vault.head];
        this.watch(store);
        this.saved = source === 'persisted' ? { state, commit: this.commit } : {};
        await previous.state.index.bodies.close();
      }),
    );
    this.saving = run.catch(() => undefined);
    await run;
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
    // A commit of several big pages (a move rewriting links in 1 MiB pages) is filed a page at
    // a time with turns between, not in one block: readers meanwhile see some of its pages
    // filed and not others, as while the watcher catches up.
    const slices = new Slices();
    try {
      for (const change of event.changes) {
        if (!isPagePath(change.path)) continue;
        await slices.pause();
        if (this.closed) return;
        await applyChange(this.vault, this.state, change.path, change.oid);
      }
    } catch (err) {
      // Half-applied: queue a rebuild (it runs after this commit leaves the queue).
      void this.rebuild().catch(() => undefined);
      throw err;
    }
    this.commit = event.commit;
    this.saves.arm();
  }

  /** A section of `store` failing its check when read rebuilds the index. */
  private watch(store: SnapshotStore): void {
    store.onBadSection = () => this.heal('a saved index section failed its check');
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
   * Inside the queue: the state's sections (see `stateSections`), the bodies written since
   * the last save appended and their table copied. A compaction, rare, copies the live
   * bodies here too.
   */
  private async capture(): Promise<Capture | undefined> {
    if (this.saved.state === this.state && this.saved.commit === this.commit) return undefined;
    const { state, commit } = this;
    const { sections, written } = stateSections(state);
    const { table, ...append } = await state.index.bodies.save();
    sections['body-table'] = table;
    return { state, commit, snapshot: this.store.prepare(commit, sections, append), written };
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
    for (const done of capture.written) done((name) => this.store.saved(name));
  }
}

/** One page's metadata: the object and its map entry, its strings (one byte a character, plus headers). */
function metaBytes(meta: PageMeta): number {
  let bytes = 300 + meta.path.length + meta.title.length;
  // Two loops, not one over a spread of both: the budget measures every loaded vault every few seconds.
  for (const s of meta.tags) bytes += 24 + s.length;
  for (const s of meta.aliases) bytes += 24 + s.length;
  return bytes + meta.packedLinks.length;
}

/** Builds HEAD's index in a builder process, then opens what it saved as a warm start does. */
async function built(
  vault: Vault,
  dir: string,
  builderMinPages: number,
  progress?: Progress,
): Promise<{ store: SnapshotStore; state: State; source: LoadSource }> {
  await buildFromHead(vault, dir, { builderMinPages, progress });
  const { store, snapshot } = await SnapshotStore.open(dir, { later: LATER });
  const restored = snapshot && (await restoreState(vault, dir, snapshot));
  if (!restored) throw new Error('The index just built could not be read back');
  return { store, ...restored };
}
