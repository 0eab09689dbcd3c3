import { replaceFileUnder } from './atomic-file.js';
import { commitMessage, indexChanges, indexFiles, type Author, type CommitEvent } from './commit-parts.js';
import type { GitIndex, IndexLock } from './git/index-file.js';
import { IndexFileError } from './git/index-format.js';
import { BRANCH_REF, hashBlob, type BranchLock, type GitRepo } from './git/repo.js';
import { busyState } from './git/repo-state.js';
import type { Log } from './log.js';
import { Slices } from './slices.js';
import type { Manifest, ManifestEntry } from './manifest.js';
import type { ChangedFile } from './manifest-follow.js';
import type { FileChange } from './worktree/working-files.js';

/** Thrown when the branch moved between planning and committing: the task is planned again on the new head. */
export class BranchMoved extends Error {}

/** What a batch works on: the vault's repository, manifest and `.git/index`. */
export interface BatchTarget {
  repo: GitRepo;
  manifest: Manifest;
  index: GitIndex;
  now: () => Date;
  log: Log;
}

type Change = ChangedFile & Omit<FileChange, 'path'>;

/**
 * Commits made one after another on the branch and landed together (group commit): each
 * `stage` writes one commit's objects on top of the previous one and shows it in the
 * manifest, so the next plan sees it; `land` makes them all durable with one round of
 * fsyncs (objects, working files, the branch's new value), then moves the branch once and
 * writes `.git/index` once. Until `land` returns nothing is acknowledged; if it fails, the
 * manifest is put back and the branch stays where it was.
 * git's locks (`index.lock`, then the branch's) are taken at the first commit that changes
 * something, and the branch must then still be where the batch started (else BranchMoved).
 */
export class CommitBatch {
  private locks: { index: IndexLock; branch: BranchLock } | undefined;
  private readonly staged: { event: CommitEvent; changes: Change[] }[] = [];
  /** Each path's manifest entry from before the batch touched it, put back if the batch fails. */
  private readonly before = new Map<string, ManifestEntry | undefined>();
  private tipTree: string | undefined;

  constructor(
    private readonly target: BatchTarget,
    private tip: string,
  ) {}

  /** The last commit staged (or the head the batch started on). */
  get head(): string {
    return this.tip;
  }

  /** True when a commit of this batch changed `path`: its working file is written only at `land`. */
  touched(path: string): boolean {
    return this.before.has(path);
  }

  /** Stages one commit of `planned` (changes that leave a file as it is dropped); undefined when nothing changes. */
  async stage(author: Author, subject: string, planned: FileChange[]): Promise<CommitEvent | undefined> {
    const { repo, manifest } = this.target;
    const changes: Change[] = [];
    // Turns between files: hashing and storing a 1,000-page commit's blobs took ~60 ms at once.
    const slices = new Slices();
    for (const change of planned) {
      await slices.pause();
      const previous = manifest.get(change.path)?.oid ?? null;
      const { content } = change;
      const oid = content === null ? null : content instanceof Uint8Array ? hashBlob(content) : content.oid;
      if (oid === previous) continue;
      changes.push({ ...change, op: oid === null ? 'delete' : previous === null ? 'add' : 'modify', oid, previous });
    }
    if (changes.length === 0) return undefined;

    this.tipTree ??= (await repo.objects.commit(this.tip)).tree;
    for (const { content } of changes) {
      // A streamed blob is in git already.
      if (content instanceof Uint8Array) await repo.writeBlob(content);
      await slices.pause();
    }
    const tree = await repo.trees.apply(
      this.tipTree,
      changes.map(({ path, oid }) => ({ path, oid })),
    );
    // The commit object is written only under the locks, on a branch that has not moved, so
    // an attempt given up leaves no dangling commit (its blobs and trees are unused).
    await this.lock();
    const at = this.target.now();
    const commit = await repo.commit({
      tree,
      parents: [this.tip],
      message: commitMessage(subject, author.trailers),
      author: { name: author.name, email: author.email },
      when: at,
    });
    for (const c of changes) {
      if (!this.before.has(c.path)) this.before.set(c.path, manifest.get(c.path));
      if (c.oid === null) manifest.delete(c.path);
      else manifest.set(c.path, { oid: c.oid, updatedAt: at });
    }
    const event: CommitEvent = {
      commit,
      parent: this.tip,
      at,
      author,
      changes: changes.map(({ path, op, oid, previous }) => ({ path, op, oid, previous })),
    };
    this.staged.push({ event, changes });
    this.tip = commit;
    this.tipTree = tree;
    return event;
  }

  /**
   * Makes the staged commits durable and moves the branch to the last; returns their events
   * in order. Working files first, ref last: after a crash in between, HEAD is the old
   * commit and the start-up scan commits the newer files, so nothing written is lost.
   */
  async land(): Promise<CommitEvent[]> {
    if (!this.locks) return [];
    const { index, branch } = this.locks;
    const { repo } = this.target;
    // A file changed twice in the batch is written once, as the last commit has it.
    const files = [...new Map(this.staged.flatMap((s) => s.changes).map((c) => [c.path, c])).values()];
    let indexReady: Promise<unknown> = Promise.resolve();
    try {
      await Promise.all([repo.flushObjects(), branch.prepare(this.tip), this.writeFiles(files)]);
      const moving = branch.move();
      // The new index is built (CPU: entries, SHA-1 of the file) while the ref's folder is
      // fsynced; it resolves to the error, if any, and is put in place once the ref has moved.
      indexReady = index.prepare(indexChanges(files), repo.dir, this.tipTree).then(
        () => undefined,
        (err: unknown) => err ?? new Error('index'),
      );
      await moving;
    } catch (err) {
      await indexReady;
      await this.abandon();
      throw err;
    }
    await this.finishIndex(index, await indexReady);
    return this.staged.map((s) => s.event);
  }

  /**
   * Writes the working files of `files`, all at once (their fsyncs overlap) but with turns of
   * the event loop between starting them: a move rewriting 500 pages spent ~200 ms creating
   * and writing the temp files in one block, every other request waiting.
   */
  private async writeFiles(files: Change[]): Promise<void> {
    const slices = new Slices();
    const writes: Promise<void>[] = [];
    for (const c of files) {
      if (c.inWorkingTree) continue;
      await slices.pause();
      const write = replaceFileUnder(this.target.repo.dir, c.path, c.content);
      write.catch(() => undefined); // awaited below; not unhandled while later ones start
      writes.push(write);
    }
    await Promise.all(writes);
  }

  /** Gives the batch up: the manifest as it was, the locks released. */
  async abandon(): Promise<void> {
    for (const [path, entry] of this.before) {
      if (entry) this.target.manifest.set(path, entry);
      else this.target.manifest.delete(path);
    }
    this.before.clear();
    const locks = this.locks;
    this.locks = undefined;
    await locks?.branch.release();
    await locks?.index.release();
  }

  /** git's order: the index lock first, then the branch's, which must still be where the batch began. */
  private async lock(): Promise<void> {
    if (this.locks) return;
    const { repo, index } = this.target;
    const busy = busyState(repo.gitdir, BRANCH_REF);
    if (busy) throw busy;
    // A `git commit` in the folder holds index.lock from start to end (its editor open, too): the write waits for it, or is busy.
    const indexLock = await index.lock();
    try {
      const branch = await repo.lockBranch();
      if (branch.current !== this.tip) {
        await branch.release();
        throw new BranchMoved();
      }
      this.locks = { index: indexLock, branch };
    } catch (err) {
      await indexLock.release();
      throw err;
    }
  }

  /**
   * Puts the index prepared for the new head in place, so `git status` in the folder is
   * clean. The commits have landed: a failure here is logged, never the write's. A missing or
   * unreadable index (a vault from before the index was kept) is rebuilt from the tree once,
   * hashing the working files; a sparse index, which we do not read, is left to git.
   */
  private async finishIndex(lock: IndexLock, prepareError: unknown): Promise<void> {
    const { repo, index, log } = this.target;
    try {
      if (prepareError === undefined) return await lock.commit();
      if (!(prepareError instanceof IndexFileError) || prepareError.reason === 'unsupported') throw prepareError;
      await index.rebuild(await indexFiles(repo, this.tipTree!), repo.dir, this.tipTree);
    } catch (err) {
      log.warn({ vault: repo.dir, err: (err as Error).message }, 'updating .git/index failed');
    } finally {
      this.locks = undefined;
    }
  }
}
