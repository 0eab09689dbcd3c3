import { QuireError } from '../errors.js';
import type { ObjectReader } from '../git/object-reader.js';
import { CatchUp, waitAtMost } from './catch-up.js';
import { commitMeta } from './commit-meta.js';
import { loadCommits, saveCommits, type IndexedCommit } from './change-index-file.js';
import { classifyChanges, type HistoryChange } from './renames.js';
import { RawTreeDiff } from './raw-tree-diff.js';

export type { IndexedCommit } from './change-index-file.js';

const TREES_KEPT = 200;
/** Estimated heap per indexed commit (ids, meta, message) and per file change. */
const COMMIT_BYTES = 600;
const CHANGE_BYTES = 200;
/** New commits after which the index is saved again (it is also saved on close). */
const SAVE_AFTER = 200;
/**
 * How long a query waits for the index to reach the head before it answers VAULT_BUSY
 * (the catch-up goes on). A few seconds of new commits are caught up within it; only a
 * first build of a long history is not (about 0.5 ms a commit of CPU).
 */
const WAIT_MS = 2_000;

export interface ChangeIndexOptions {
  /** Where the index is saved between opens (see change-index-file.ts); undefined: never. */
  file?: string;
  /** How long a query waits for the index to catch up (default 2 s). */
  waitMs?: number;
}

/**
 * The branch's first-parent history with each commit's file changes, and per path the
 * positions of the commits that changed it: what page history, read-at, diff, restore and
 * the deleted list look up instead of walking commits. Derived data, held in memory only:
 * built from git on first use (every commit read and its raw trees diffed once, unchanged
 * subtrees skipped; in slices, a query waiting at most `waitMs` for it) and brought to the
 * branch's head before every query, whoever moved it — server writes, folder edits, pushes,
 * commits made in the folder. Walking back from the new head to the first commit it
 * already knows is one step per new commit; a head it never meets
 * (history rewritten: a force-push, a reset, an amend) drops everything after the commit
 * where the two histories meet, or rebuilds when they share none. A merge is indexed like
 * any commit, as its changes against its first parent; the commits it brought in are not
 * listed (what the change feed does too).
 */
export class ChangeIndex {
  private commits: IndexedCommit[] = [];
  private readonly position = new Map<string, number>();
  private readonly byPath = new Map<string, number[]>();
  private lock: Promise<unknown> = Promise.resolve();

  private loaded = false;
  /** Commits appended or dropped since the index was last saved. */
  private unsaved = 0;

  /** Changes held, for memoryBytes. */
  private changeCount = 0;
  /** The catch-up running, if any. */
  private catchUp: CatchUp | undefined;
  private closing = false;

  constructor(
    private readonly objects: ObjectReader,
    private readonly options: ChangeIndexOptions = {},
  ) {}

  /** A rough estimate of the heap it holds (commit metas and changes). */
  memoryBytes(): number {
    return this.commits.length * COMMIT_BYTES + this.changeCount * CHANGE_BYTES;
  }

  /**
   * Brings the index to `head`, then runs `read` on it before anything else may change it.
   * Queries run one at a time through here; `read` is synchronous (blob reads come after).
   * A query that waited `waitMs` for the catch-up gets VAULT_BUSY (with `retry_after`):
   * answering from part of the history could leave out a page's newest changes or tell a
   * version that is not the one at the time asked, so it never answers from a partial index.
   */
  read<T>(head: string, read: (index: ChangeIndex) => T): Promise<T> {
    let gaveUp = false;
    const task = this.serialized(async () => {
      await this.load();
      await this.follow(head);
      if (this.unsaved >= SAVE_AFTER) await this.save();
      if (this.closing) throw new QuireError('VAULT_BUSY', 'The vault is closing', { retry_after: 1 });
      return gaveUp ? (undefined as T) : read(this);
    });
    return waitAtMost(task, this.options.waitMs ?? WAIT_MS, () => {
      gaveUp = true;
      return (this.catchUp ?? new CatchUp()).busy();
    });
  }

  /** Stops a catch-up at the next commit and saves what it indexed (a build resumes from there). */
  close(): Promise<void> {
    this.closing = true;
    return this.serialized(async () => {
      if (this.unsaved > 0) await this.save();
    });
  }

  private async load(): Promise<void> {
    if (!this.loaded && this.options.file) {
      for (const commit of (await loadCommits(this.options.file)) ?? []) this.append(commit);
      this.unsaved = 0;
    }
    this.loaded = true;
  }

  private serialized<T>(task: () => Promise<T>): Promise<T> {
    const run = this.lock.then(task);
    this.lock = run.catch(() => undefined);
    return run;
  }

  private async save(): Promise<void> {
    if (!this.options.file) return;
    await saveCommits(this.options.file, this.commits);
    this.unsaved = 0;
  }

  get length(): number {
    return this.commits.length;
  }

  /** The commit at a position (0: the root). */
  commit(position: number): IndexedCommit {
    return this.commits[position];
  }

  positionOf(oid: string): number | undefined {
    return this.position.get(oid);
  }

  /** Positions of the commits that changed `path`, oldest first (do not modify). */
  positionsOf(path: string): readonly number[] {
    return this.byPath.get(path) ?? [];
  }

  /** Every path some commit changed. */
  paths(): IterableIterator<string> {
    return this.byPath.keys();
  }

  /** The change of `path` in the commit at `position`, if it changed it. */
  changeOf(position: number, path: string): HistoryChange | undefined {
    const changes = this.commits[position].changes;
    let [lo, hi] = [0, changes.length];
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (changes[mid].path < path) lo = mid + 1;
      else hi = mid;
    }
    return changes[lo]?.path === path ? changes[lo] : undefined;
  }

  /**
   * Walks back from `head` to the first commit it knows, then indexes the new ones oldest
   * first, in slices (see CatchUp). Only ids are held during the walk (each commit is read
   * again to index it: cheaper than holding 100k commit messages). Stopped by close, it
   * leaves a prefix of the history, from which the next catch-up goes on.
   */
  private async follow(head: string): Promise<void> {
    const known = this.position.get(head);
    if (known !== undefined) return this.truncate(known + 1);
    const catchUp = (this.catchUp = new CatchUp());
    try {
      const newer: string[] = [];
      let oid: string | undefined = head;
      let join: number | undefined;
      while (oid !== undefined && (join = this.position.get(oid)) === undefined) {
        if (this.closing) return;
        newer.push(oid);
        oid = (await this.objects.commit(oid)).parents[0];
        await catchUp.pause();
      }
      this.truncate(join === undefined ? 0 : join + 1);
      catchUp.total = newer.length;
      // A memo of its own, dropped after: a build diffs each commit with the one before, so
      // only the last versions are worth keeping.
      const trees = new RawTreeDiff((tree) => this.objects.rawTree(tree), TREES_KEPT);
      let parentTree = join === undefined ? null : this.commits[join].tree;
      for (let i = newer.length - 1; i >= 0 && !this.closing; i--) {
        const commit = await this.objects.commit(newer[i]);
        const meta = commitMeta(commit);
        const changes = classifyChanges(await trees.diff(parentTree, commit.tree), meta.moved);
        this.append({ oid: commit.oid, tree: commit.tree, time: commit.author.timestamp * 1000, meta, changes });
        parentTree = commit.tree;
        catchUp.done += 1;
        await catchUp.pause();
      }
    } finally {
      this.catchUp = undefined;
      // A long catch-up filled the packs' delta-base caches with old trees: held per vault
      // for as long as it is open, they would be its largest memory.
      if ((catchUp.total ?? 0) >= SAVE_AFTER) await this.objects.releaseCaches();
    }
  }

  private append(commit: IndexedCommit): void {
    this.unsaved += 1;
    this.changeCount += commit.changes.length;
    const at = this.commits.length;
    this.commits.push(commit);
    this.position.set(commit.oid, at);
    for (const { path } of commit.changes) {
      const list = this.byPath.get(path);
      if (list) list.push(at);
      else this.byPath.set(path, [at]);
    }
  }

  /** Forgets the commits from `length` on (the branch moved back or was rewritten). */
  private truncate(length: number): void {
    while (this.commits.length > length) {
      const dropped = this.commits.pop()!;
      this.unsaved += 1;
      this.changeCount -= dropped.changes.length;
      this.position.delete(dropped.oid);
      for (const { path } of dropped.changes) {
        const list = this.byPath.get(path)!;
        list.pop();
        if (list.length === 0) this.byPath.delete(path);
      }
    }
  }
}
