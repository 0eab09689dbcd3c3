import { promises as fsp } from 'node:fs';
import { join } from 'node:path';
import { replaceFileUnder } from './atomic-file.js';
import { QuireError } from './errors.js';
import { BRANCH_REF, GitRepo, hashBlob, type BranchLock, type Signature } from './git/repo.js';
import { GitIndex, type IndexLock } from './git/index-file.js';
import { commitMessage, indexChanges, indexFiles } from './commit-parts.js';
import { IndexFileError } from './git/index-format.js';
import { busyState } from './git/repo-state.js';
import { silentLog, type Log } from './log.js';
import { SYMLINK_MODE } from './git/tree-parse.js';
import { Manifest } from './manifest.js';
import { followTree, type ChangedFile } from './manifest-follow.js';
import { symlinkOnPath, symlinkRefusal } from './symlinks.js';
import { DEFAULT_GITIGNORE, IgnoreRules } from './worktree/ignore-rules.js';
import { diffWorkingFiles, type FileChange, type OnSymlink } from './worktree/working-files.js';
import { WriteQueue } from './write-queue.js';

export type { FileChange } from './worktree/working-files.js';
export type { ChangedFile } from './manifest-follow.js';

/** Who a commit is for: the author line plus trailers naming key, agent, etc. */
export interface Author extends Signature {
  trailers?: Record<string, string>;
}

/** Edits made in the working tree (Obsidian, a text editor, git pull) are committed as this author. */
export const EXTERNAL_AUTHOR: Author = {
  name: 'external',
  email: 'external@quire.invalid',
  trailers: { 'Quire-Actor': 'external' },
};

export interface CommitEvent {
  commit: string;
  parent: string;
  at: Date;
  author: Author;
  changes: ChangedFile[];
}

export type CommitListener = (event: CommitEvent) => void | Promise<void>;

/** Times a task re-runs because git moved the branch while it was committing. */
const MAX_ATTEMPTS = 5;

/** Thrown inside the queue when the branch moved between planning and committing: re-plan. */
class BranchMoved extends Error {}

export interface VaultOptions {
  now?: () => Date;
  /** Where a failed commit listener is reported (the write itself has landed). */
  log?: Log;
  /** How long a lock git holds on the branch or index is waited for before VAULT_BUSY (3 s). */
  lockWaitMs?: number;
}

/**
 * One user's vault: a git repository whose working tree is the markdown folder. Every
 * mutation goes through `mutate`, inside the vault's single write queue, so precondition
 * checks (base_hash) and the commit are one atomic step as seen by other writers.
 */
export class Vault {
  private readonly queue = new WriteQueue();
  private readonly listeners: CommitListener[] = [];

  private constructor(
    readonly repo: GitRepo,
    readonly manifest: Manifest,
    /** What git ignores in the folder: never committed from it unless tracked. */
    readonly ignore: IgnoreRules,
    /** `.git/index`, kept in step with HEAD for every path the server writes. */
    private readonly index: GitIndex,
    private headOid: string,
    private readonly now: () => Date,
    private readonly openedHeadTime: Date,
    private readonly log: Log,
  ) {}

  static async open(dir: string, options: VaultOptions = {}): Promise<Vault> {
    const now = options.now ?? (() => new Date());
    // A new vault starts with a short .gitignore (see docs/git.md), committed like any file.
    const repo = await GitRepo.open(dir, { now, lockWaitMs: options.lockWaitMs, initialFiles: { '.gitignore': DEFAULT_GITIGNORE } });
    const ignore = await IgnoreRules.load(repo.dir, { gitdir: repo.gitdir, ignoreCase: repo.fileSystem.ignorecase });
    const head = await repo.head();
    const { tree, author } = await repo.objects.commit(head);
    const manifest = new Manifest();
    // Times are looked up lazily: a stat per file here was most of opening a 10k vault.
    for (const file of await repo.trees.files(tree)) {
      if (file.mode === SYMLINK_MODE) manifest.addLink(file.path);
      else manifest.set(file.path, { oid: file.oid });
    }
    const index = new GitIndex({ gitdir: repo.gitdir, waitMs: options.lockWaitMs, fileMode: repo.fileSystem.filemode });
    // A new vault's first files are in the index at once, so `git status` is clean from the start.
    if (repo.created) await (await index.lock()).rebuild(await indexFiles(repo, tree), repo.dir);
    return new Vault(repo, manifest, ignore, index, head, now, new Date(author.timestamp * 1000), options.log ?? silentLog);
  }

  /**
   * When a file last changed: the commit time for files committed since open; otherwise the
   * working file's mtime (when it last changed on this machine), else the head commit's time.
   */
  async updatedAt(path: string): Promise<Date> {
    const entry = this.manifest.get(path);
    if (!entry) throw new QuireError('NOT_FOUND', `No file at ${path}`, { path });
    if (entry.updatedAt) return entry.updatedAt;
    const mtime = (await fsp.lstat(join(this.dir, path)).catch(() => undefined))?.mtime;
    // A commit may have set the time while the stat ran; it wins.
    entry.updatedAt ??= mtime ?? this.openedHeadTime;
    return entry.updatedAt;
  }

  get dir(): string {
    return this.repo.dir;
  }

  get head(): string {
    return this.headOid;
  }

  get pendingWrites(): number {
    return this.queue.pending;
  }

  /** Called inside the write queue after each commit; derived data hooks in here. Returns the removal. */
  onCommit(listener: CommitListener): () => void {
    this.listeners.push(listener);
    return () => {
      const at = this.listeners.indexOf(listener);
      if (at >= 0) this.listeners.splice(at, 1);
    };
  }

  /** How many commit listeners are attached (a listener that outlives its owner is a leak). */
  get commitListenerCount(): number {
    return this.listeners.length;
  }

  async readFile(path: string): Promise<{ oid: string; content: Uint8Array } | undefined> {
    const entry = this.manifest.get(path);
    if (!entry) return undefined;
    return { oid: entry.oid, content: await this.repo.objects.blob(entry.oid) };
  }

  /**
   * Runs `task` alone on this vault; used for anything that must not interleave with writes.
   * The vault first follows the branch if git moved it, and a task whose commit finds the
   * branch moved again (a commit or pull in the folder meanwhile) is run again from the start
   * against the new head, so its preconditions are checked against what it commits on.
   */
  exclusive<T>(task: () => Promise<T>): Promise<T> {
    return this.queue.run(async () => {
      for (let attempt = 1; ; attempt++) {
        await this.followBranch();
        try {
          return await task();
        } catch (err) {
          if (!(err instanceof BranchMoved)) throw err;
          if (attempt === MAX_ATTEMPTS) {
            throw new QuireError('VAULT_BUSY', 'The branch keeps moving in the vault folder (git is committing); retry shortly', {
              retry_after: 2,
              state: 'moving',
            });
          }
        }
      }
    });
  }

  /** Follows the branch now if git moved it (the watcher calls this when a ref changes). */
  follow(): Promise<void> {
    return this.queue.run(() => this.followBranch());
  }

  /**
   * Runs `task` (a `git receive-pack` into this repository) alone on the vault, refused with
   * VAULT_BUSY when nothing may be committed now; then follows the branch it moved.
   */
  receive<T>(task: () => Promise<T>): Promise<T> {
    return this.queue.run(async () => {
      await this.followBranch();
      const busy = busyState(this.repo.gitdir, BRANCH_REF);
      if (busy) throw busy;
      try {
        return await task();
      } finally {
        await this.followBranch();
      }
    });
  }

  /**
   * The one way to change the vault. `plan` runs inside the queue against the current
   * manifest and may throw (e.g. CONFLICT) to abort with nothing written. Changes that
   * leave a file as it is are dropped; if none remain, no commit is made.
   * An edit made in the working tree to a planned path that the watcher has not committed
   * yet is committed first (as `external`) and the plan re-run against it, so neither is
   * lost and a `base_hash` taken before that edit gets CONFLICT.
   * A planned path at or beneath a symbolic link is refused (INVALID_PATH) before anything is
   * read or written.
   */
  mutate(author: Author, subject: string, plan: () => FileChange[] | Promise<FileChange[]>): Promise<CommitEvent | undefined> {
    const checkedPlan = async () => this.refuseSymlinks(await plan());
    return this.exclusive(async () => {
      let planned = await checkedPlan();
      if (await this.reconcile(planned.map((c) => c.path))) planned = await checkedPlan();
      return this.writeCommit(author, subject, planned);
    });
  }

  /**
   * Only for use inside `exclusive` (the caller holds the queue). Uncommitted working-tree
   * edits to the planned paths are committed first (as `external`) so history keeps them;
   * a caller that plans from current contents calls `reconcile` before planning.
   */
  async commitChanges(author: Author, subject: string, planned: FileChange[]): Promise<CommitEvent | undefined> {
    this.refuseSymlinks(planned);
    await this.reconcile(planned.filter((c) => !c.inWorkingTree).map((c) => c.path));
    return this.writeCommit(author, subject, planned);
  }

  /**
   * Only inside the queue: commits the working files at `paths` that differ from HEAD, as
   * the external author. `mutate` runs it on the paths it is about to write so an edit the
   * watcher has not committed yet is kept in history, not overwritten.
   */
  async reconcile(paths: readonly string[], onSymlink?: OnSymlink): Promise<CommitEvent | undefined> {
    const changes = await diffWorkingFiles(this.dir, this.manifest, paths, onSymlink);
    if (changes.length === 0) return undefined;
    const subject = changes.length === 1 ? `External edit of ${changes[0].path}` : `External edits to ${changes.length} files`;
    return this.writeCommit(EXTERNAL_AUTHOR, subject, changes);
  }

  private async writeCommit(author: Author, subject: string, planned: FileChange[]): Promise<CommitEvent | undefined> {
    const changes: (ChangedFile & Omit<FileChange, 'path'>)[] = [];
    for (const change of planned) {
      const previous = this.manifest.get(change.path)?.oid ?? null;
      const oid = change.content === null ? null : hashBlob(change.content);
      if (oid === previous) continue;
      const op = oid === null ? 'delete' : previous === null ? 'add' : 'modify';
      changes.push({ ...change, op, oid, previous });
    }
    if (changes.length === 0) return undefined;

    const busy = busyState(this.repo.gitdir, BRANCH_REF);
    if (busy) throw busy;
    const at = this.now();
    const parent = this.headOid;
    const { tree: baseTree } = await this.repo.objects.commit(parent);
    await Promise.all(changes.filter((c) => c.content).map((c) => this.repo.writeBlob(c.content!)));
    const tree = await this.repo.trees.apply(
      baseTree,
      changes.map(({ path, oid }) => ({ path, oid })),
    );
    // Under git's lock on the branch: the parent must still be its value, or git committed
    // meanwhile and the task starts over on the new head. The commit object is written only
    // then, so an attempt given up leaves no dangling commit (its blobs and trees are unused).
    // git's order: the index lock first, then the branch's. A `git commit` in the folder holds
    // index.lock from start to end (its editor open, too): the write waits for it, or is busy.
    const index = await this.index.lock();
    let branch: BranchLock | undefined;
    let indexReady: Promise<unknown> = Promise.resolve();
    let commit: string;
    try {
      branch = await this.repo.lockBranch();
      if (branch.current !== parent) throw new BranchMoved();
      commit = await this.repo.commit({
        tree,
        parents: [parent],
        message: commitMessage(subject, author.trailers),
        author: { name: author.name, email: author.email },
        when: at,
      });
      // Working files first, ref last: after a crash in between, HEAD is the old commit and
      // the start-up scan commits the newer files, so nothing written is lost. Objects are
      // fsynced in the same parallel round as the working files.
      await Promise.all([
        this.repo.flushObjects(),
        ...changes.filter((c) => !c.inWorkingTree).map((c) => replaceFileUnder(this.dir, c.path, c.content)),
      ]);
      const moving = branch.move(commit);
      // The new index is built (CPU: entries, SHA-1 of the file) while the ref's fsync runs;
      // it resolves to the error, if any, and is put in place once the ref has moved.
      indexReady = index.prepare(indexChanges(changes), this.dir).then(
        () => undefined,
        (err: unknown) => err ?? new Error('index'),
      );
      await moving;
    } catch (err) {
      await indexReady;
      await branch?.release();
      await index.release();
      throw err;
    }
    this.headOid = commit;
    for (const c of changes) {
      if (c.oid === null) this.manifest.delete(c.path);
      else this.manifest.set(c.path, { oid: c.oid, updatedAt: at });
    }
    const event: CommitEvent = {
      commit,
      parent,
      at,
      author,
      changes: changes.map(({ path, op, oid, previous }) => ({ path, op, oid, previous })),
    };
    await this.finishIndex(index, await indexReady, tree);
    await this.notify(event);
    return event;
  }

  /**
   * Puts the index prepared for the new commit in place, so `git status` in the folder is
   * clean. The commit has landed: a failure here is logged, never the write's. A missing or
   * unreadable index (a vault from before the index was kept) is rebuilt from the tree once,
   * hashing the working files; one in a format we do not write (split or sparse) is left to git.
   */
  private async finishIndex(lock: IndexLock, prepareError: unknown, tree: string): Promise<void> {
    try {
      if (prepareError === undefined) return await lock.commit();
      if (!(prepareError instanceof IndexFileError) || prepareError.reason === 'unsupported') throw prepareError;
      const files = await this.repo.trees.files(tree);
      await (
        await this.index.lock()
      ).rebuild(
        files.map((f) => ({ path: f.path, oid: f.oid, mode: parseInt(f.mode, 8) })),
        this.dir,
      );
    } catch (err) {
      this.log.warn({ vault: this.dir, err: (err as Error).message }, 'updating .git/index failed');
    }
  }

  /**
   * Inside the queue: when git moved the branch (a commit, pull, merge, reset or push in the
   * folder), takes the new head as it is — manifest from the diff between the two trees,
   * whatever their ancestry — and tells the listeners, so search, graph and page list
   * follow. The change feed reads the commits themselves, with their own authors.
   */
  private async followBranch(): Promise<void> {
    const head = await this.repo.head();
    if (head === this.headOid) return;
    const parent = this.headOid;
    const { changes, at, author } = await followTree(this.repo, this.manifest, parent, head);
    this.headOid = head;
    await this.notify({ commit: head, parent, at, author, changes });
  }

  private async notify(event: CommitEvent): Promise<void> {
    // A copy: a listener may remove itself (or another) while the commit is announced.
    for (const listener of [...this.listeners]) {
      // The commit is durable and acknowledged; derived data that fails to follow marks
      // itself stale and is rebuilt, it must not turn a landed write into an error.
      try {
        await listener(event);
      } catch (err) {
        this.log.error({ commit: event.commit, err: (err as Error).message }, 'commit listener failed');
      }
    }
  }

  /**
   * Throws INVALID_PATH when a change the server would write lies at or beneath a symbolic
   * link, in git or in the folder: writing there would replace a link git keeps, or land
   * wherever the link points. Edits already in the working tree write nothing and pass.
   */
  private refuseSymlinks(planned: FileChange[]): FileChange[] {
    for (const { path, inWorkingTree } of planned) {
      if (inWorkingTree) continue;
      const inGit = this.manifest.symlinkOn(path);
      if (inGit !== undefined) throw symlinkRefusal(path, inGit, 'git');
      const inFolder = symlinkOnPath(this.dir, path);
      if (inFolder !== undefined) throw symlinkRefusal(path, inFolder, 'folder');
    }
    return planned;
  }

  /** Throws CONFLICT unless the page's current blob id matches the caller's expectation. */
  expectHash(path: string, baseHash: string | null | undefined): void {
    if (baseHash === undefined) return;
    const current = this.manifest.get(path)?.oid ?? null;
    if (current !== baseHash) {
      const message =
        current === null
          ? `${path} does not exist (base_hash ${baseHash} is stale)`
          : baseHash === null
            ? `${path} already exists`
            : `${path} changed since ${baseHash}`;
      throw new QuireError('CONFLICT', message, { path, current_hash: current });
    }
  }
}
