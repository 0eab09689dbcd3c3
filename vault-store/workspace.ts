import { join } from 'node:path';
import type { Writable } from 'node:stream';
import { exportZip, type ExportOptions, type ExportResult } from './export/export-zip.js';
import { setTaskStatus, type TaskStatusInput } from './edits/task-status.js';
import { VaultHistory, type ChangeFeed, type Visible } from './history/changes.js';
import { PageTimeline } from './history/page-timeline.js';
import { PageEmbeddings, type Embed } from './knowledge/embeddings.js';
import { Knowledge } from './knowledge/knowledge.js';
import { CommitCounter, diskBytes } from './knowledge/stats.js';
import { silentLog, type Log } from './log.js';
import { Files } from './files.js';
import type { PageView } from './page-view.js';
import { Pages } from './pages.js';
import { isPagePath } from './paths.js';
import { Proposals } from './proposals/proposals.js';
import { revert, type RevertRequest, type RevertResult } from './revert/revert.js';
import { Vault, type Author, type CommitListener } from './vault.js';

// Walking a vault's files costs ~0.3 s on 10k pages; stats and health share a minute-old figure.
const DISK_TTL_MS = 60_000;
/** The vault's file list at its last close, beside the index (see manifest-file.ts). */
const MANIFEST_FILE = 'tree-files';
/** A file of the manifest: its map entries (by path and case-folded), path and blob id strings. */
const MANIFEST_ENTRY_BYTES = 250;

export interface WorkspaceOptions {
  /** Where derived data (search index, page vectors) is persisted. */
  indexDir: string;
  /** Longest time from a commit to the save of the index that holds it; false: only on close. */
  persistDelayMs?: number | false;
  /** Page vectors for similar pages, when an embeddings model is configured. */
  embeddings?: { model: string; embed: Embed };
  /** Where the vault's own failures go (a failed commit listener or index write). */
  log?: Log;
  /** How long a lock git holds is waited for before a write answers VAULT_BUSY (3 s). */
  lockWaitMs?: number;
}

/**
 * Everything of one vault, opened and closed as one: the `Vault` (git, working tree, write
 * queue) and what is built on it — pages, knowledge (search, graph), proposals, the change
 * feed, export, page vectors, and the caches of stats. Operations use its methods and
 * parts; only the watcher (which commits external edits) and tests take `vault` itself.
 */
export class Workspace {
  readonly pages: Pages;
  /** Every file, pages and attachments: stream in, stream out, list with sizes. */
  readonly files: Files;
  readonly proposals: Proposals;
  /** Pages through time: history, activity, past versions, diffs, the deleted list. */
  readonly timeline: PageTimeline;
  private readonly history: VaultHistory;
  private readonly commits: CommitCounter;
  private disk: { at: number; bytes: Promise<number> } | undefined;
  private closing: Promise<void> | undefined;

  private constructor(
    readonly vault: Vault,
    readonly knowledge: Knowledge,
    readonly embeddings: PageEmbeddings | undefined,
    indexDir: string,
  ) {
    this.pages = new Pages(vault);
    this.files = new Files(vault, this.pages);
    this.proposals = new Proposals(vault);
    this.history = new VaultHistory(vault);
    this.timeline = new PageTimeline(vault, { file: join(indexDir, 'history.json') });
    this.commits = new CommitCounter(vault);
  }

  static async open(dir: string, options: WorkspaceOptions): Promise<Workspace> {
    const log = options.log ?? silentLog;
    const vault = await Vault.open(dir, { log, lockWaitMs: options.lockWaitMs, manifestFile: join(options.indexDir, MANIFEST_FILE) });
    const knowledge = await Knowledge.open(vault, { indexDir: options.indexDir, persistDelayMs: options.persistDelayMs, log });
    if (!options.embeddings) return new Workspace(vault, knowledge, undefined, options.indexDir);
    const { model, embed } = options.embeddings;
    const embeddings = await PageEmbeddings.open(join(options.indexDir, 'embeddings.bin'), model, embed, () => knowledge.index, log);
    // After the write, not inside it: new pages are embedded in the background.
    const refresh = () => void setImmediate(() => void embeddings.refresh());
    vault.onCommit(refresh);
    refresh();
    return new Workspace(vault, knowledge, embeddings, options.indexDir);
  }

  /**
   * Lets queued writes land (the index follows each one) and saves the file list, waits for
   * running embeddings, then writes the index at head. Callers stop handing the workspace out first.
   */
  close(): Promise<void> {
    // Once: a second caller (shutdown during an eviction) waits for the same close.
    this.closing ??= (async () => {
      await this.vault.settle();
      await this.embeddings?.close();
      await this.knowledge.close();
      await this.timeline.close();
    })();
    return this.closing;
  }

  /** Estimated heap bytes this vault holds: its derived data (search, graph, metadata, change index) and file list. */
  memoryBytes(): number {
    return this.knowledge.memoryBytes() + this.vault.manifest.size * MANIFEST_ENTRY_BYTES + this.timeline.memoryBytes();
  }

  get dir(): string {
    return this.vault.dir;
  }

  /**
   * Runs `receive` (a `git receive-pack` into this repository) alone on the vault: no server
   * write interleaves with it. Throws VAULT_BUSY first when the folder is in a state where
   * nothing may be committed (see busy states); afterwards the workspace follows the branch
   * (page list, search, graph, change feed), so a push is searchable once this resolves.
   */
  receivePack<T>(receive: () => Promise<T>): Promise<T> {
    return this.vault.receive(receive);
  }

  /**
   * Hears of every commit (server writes, folder edits, pushes, outside commits followed), inside
   * the write queue: a listener must be quick. Returns the removal, for listeners that come and go.
   */
  onCommit(listener: CommitListener): () => void {
    return this.vault.onCommit(listener);
  }

  /** The repository `git upload-pack` serves for clones. */
  get gitdir(): string {
    return this.vault.repo.gitdir;
  }

  get head(): string {
    return this.vault.head;
  }

  get pendingWrites(): number {
    return this.vault.pendingWrites;
  }

  /** Every page path at head, sorted. */
  pagePaths(): readonly string[] {
    return this.vault.manifest.pages();
  }

  /** Every attachment path at head (files of the API that are no page), sorted. */
  attachmentPaths(): string[] {
    return this.vault.manifest.vaultFiles().filter((path) => !isPagePath(path));
  }

  hasFile(path: string): boolean {
    return this.vault.manifest.get(path) !== undefined;
  }

  /** Sets one task item's checkbox (see `withTaskStatus`); a stale base hash's CONFLICT names the task's line now. */
  setTaskStatus(author: Author, input: TaskStatusInput) {
    return setTaskStatus(this.pages, this.vault, author, input);
  }

  /** A file's bytes at head (any file, not only pages), or undefined. */
  readFile(path: string): Promise<{ oid: string; content: Uint8Array } | undefined> {
    return this.vault.readFile(path);
  }

  /** The page at `path` as it was at `at` (commit or date): its view, the commit `at` resolved to and the one that wrote it. */
  async readPageAt(path: string, at: string, visible: Visible): Promise<PageView & { commit: string; changed_in: string }> {
    const past = await this.timeline.versionAt(path, at, visible);
    return { ...this.pages.viewOf(past.path, past.hash, past.content, past.changed_at), commit: past.commit, changed_in: past.changed_in };
  }

  /** The change feed after `since` (see VaultHistory.changesSince). */
  changesSince(input: { since: string; limit: number; visible?: Visible }): Promise<ChangeFeed> {
    return this.history.changesSince(input);
  }

  /** Every current page as one change at head: where a device without a cursor starts. */
  snapshot(input: { visible?: Visible } = {}): Promise<ChangeFeed> {
    return this.history.snapshot(input);
  }

  /** True when `oid` is head or a first-parent ancestor of it. */
  isCommitInHistory(oid: string): Promise<boolean> {
    return this.history.contains(oid);
  }

  /** True when `oid` is `descendant` or one of its ancestors (any parent). */
  isAncestor(oid: string, descendant: string): Promise<boolean> {
    return this.vault.repo.isAncestor(oid, descendant);
  }

  /** Undoes a session's or one commit's changes in one new commit, or plans it (see revert). */
  revert(author: Author, request: Omit<RevertRequest, 'inHistory'>): Promise<RevertResult> {
    return revert(this.vault, author, { ...request, inHistory: (oid) => this.history.contains(oid) });
  }

  /** Streams every file of a commit (head unless told) as a zip into `out`. */
  export(options: ExportOptions, out: Writable): Promise<ExportResult> {
    return exportZip(this.vault, options, out);
  }

  commitCount(): Promise<number> {
    return this.commits.count();
  }

  /** Bytes on disk, `.git` included, measured at most once a minute. */
  diskBytes(): Promise<number> {
    if (this.disk && Date.now() - this.disk.at < DISK_TTL_MS) return this.disk.bytes;
    this.disk = { at: Date.now(), bytes: diskBytes(this.dir) };
    return this.disk.bytes;
  }
}
