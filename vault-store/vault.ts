import { promises as fsp } from 'node:fs';
import { join } from 'node:path';
import { BranchMoved, CommitBatch } from './commit-batch.js';
import { EXTERNAL_AUTHOR, type Author, type CommitEvent } from './commit-parts.js';
import { QuireError } from './errors.js';
import { BRANCH_REF, GitRepo } from './git/repo.js';
import { GitIndex } from './git/index-file.js';
import { bringIndexToHead } from './index-at-open.js';
import { busyState } from './git/repo-state.js';
import { silentLog, type Log } from './log.js';
import type { Manifest } from './manifest.js';
import { manifestFileBytes, readManifestFile, writeManifestFile } from './manifest-file.js';
import { followTree, manifestOfTree } from './manifest-follow.js';
import { symlinkOnPath, symlinkRefusal } from './symlinks.js';
import { DEFAULT_GITIGNORE, IgnoreRules } from './worktree/ignore-rules.js';
import { diffWorkingFiles, type FileChange, type OnSymlink } from './worktree/working-files.js';
import { WriteQueue, type BatchRunner, type Settled } from './write-queue.js';

export type { FileChange } from './worktree/working-files.js';
export type { ChangedFile } from './manifest-follow.js';
export type { Author, CommitEvent } from './commit-parts.js';

export type CommitListener = (event: CommitEvent) => void | Promise<void>;

/** Times a task re-runs because git moved the branch while it was committing. */
const MAX_ATTEMPTS = 5;

/** A `mutate` waiting in the queue. */
interface PlannedWrite {
  author: Author;
  subject: string;
  plan: () => FileChange[] | Promise<FileChange[]>;
}

export interface VaultOptions {
  now?: () => Date;
  /** Where a failed commit listener is reported (the write itself has landed). */
  log?: Log;
  /** How long a lock git holds on the branch or index is waited for before VAULT_BUSY (3 s). */
  lockWaitMs?: number;
  /**
   * Where the manifest is saved (derived data, like the index): an open at the tree saved
   * reads it instead of walking the tree. Saved after a walk and by `settle`.
   */
  manifestFile?: string;
}

/**
 * One user's vault: a git repository whose working tree is the markdown folder. Every
 * mutation goes through `mutate`, inside the vault's single write queue, so precondition
 * checks (base_hash) and the commit are one atomic step as seen by other writers.
 */
export class Vault {
  private readonly queue = new WriteQueue();
  /** The commit the batch landing now moves the branch to. */
  private landing: string | undefined;
  private readonly listeners: CommitListener[] = [];
  private manifestFile: string | undefined;
  /** The tree whose manifest `manifestFile` holds. */
  private savedTree: string | undefined;

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
    const ignore = IgnoreRules.deferred(repo.dir, { gitdir: repo.gitdir, ignoreCase: repo.fileSystem.ignorecase });
    const head = await repo.head();
    const { tree, author } = await repo.objects.commit(head);
    const saved = options.manifestFile === undefined ? undefined : await readManifestFile(options.manifestFile, tree);
    const manifest = saved ?? (await manifestOfTree(repo, tree));
    const index = new GitIndex({ gitdir: repo.gitdir, waitMs: options.lockWaitMs, fileMode: repo.fileSystem.filemode });
    const log = options.log ?? silentLog;
    // `git status` is clean from the start: a new vault's first files, or a batch a crash cut short, are in the index.
    await bringIndexToHead(repo, index, tree, log);
    const vault = new Vault(repo, manifest, ignore, index, head, now, new Date(author.timestamp * 1000), log);
    vault.manifestFile = options.manifestFile;
    if (saved) vault.savedTree = tree;
    else await vault.saveManifest();
    return vault;
  }

  /**
   * Inside the queue or before anything is queued: saves the manifest for the next open when
   * the head's tree is not the one saved. A failure costs the next open a walk, nothing else.
   */
  private async saveManifest(): Promise<void> {
    if (this.manifestFile === undefined) return;
    try {
      const { tree } = await this.repo.objects.commit(this.headOid);
      if (tree === this.savedTree) return;
      await writeManifestFile(this.manifestFile, manifestFileBytes(this.manifest, tree));
      this.savedTree = tree;
    } catch (err) {
      this.log.warn({ err: (err as Error).message }, 'saving the file list failed');
    }
  }

  /** Lets queued writes land and a merge of packs finish, then saves the manifest for the next open (see `VaultOptions.manifestFile`). */
  settle(): Promise<void> {
    return this.exclusive(async () => {
      await this.repo.packsSettled();
      await this.saveManifest();
    });
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
    return this.queue.run(() => this.onCurrentHead(task));
  }

  /** Runs `task` after following the branch, again from the start when git moved the branch before its commit. */
  private async onCurrentHead<T>(task: () => Promise<T>): Promise<T> {
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
  }

  /**
   * Follows the branch now if git moved it (the watcher calls this when a ref changes). The
   * watcher also hears every move of our own; those are told apart outside the queue, as a
   * queued task each would close the batch taking writes and start another behind it.
   */
  async follow(): Promise<void> {
    const head = await this.repo.head().catch(() => undefined);
    if (head !== undefined && (head === this.headOid || head === this.landing)) return;
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
    return this.queue.batch(this.writeBatch, { author, subject, plan });
  }

  /**
   * The `mutate`s that queued up behind the task running, and those that come while it
   * stages (group commit): each is planned on the commits staged before it and becomes its
   * own commit, in order, with its own preconditions; one that fails (CONFLICT) fails alone.
   * All land with one round of fsyncs and one move of the branch, and each is answered only
   * once they are durable.
   */
  private readonly writeBatch: BatchRunner<PlannedWrite, CommitEvent | undefined> = (writes, seal) =>
    this.onCurrentHead(() =>
      this.inBatch(async (batch) => {
        const outcomes: Settled<CommitEvent | undefined>[] = [];
        // `writes` grows while commits are staged; sealed when none is left, before landing.
        for (let i = 0; i < writes.length; i++) outcomes.push(await this.stageWrite(batch, writes[i]));
        seal();
        return outcomes;
      }),
    );

  private async stageWrite(batch: CommitBatch, { author, subject, plan }: PlannedWrite): Promise<Settled<CommitEvent | undefined>> {
    const checkedPlan = async () => this.refuseSymlinks(await plan());
    try {
      let planned = await checkedPlan();
      // A path an earlier write of the batch changed has its working file written at landing, not yet.
      const untouched = planned.map((c) => c.path).filter((path) => !batch.touched(path));
      if (await this.stageExternalEdits(batch, untouched)) planned = await checkedPlan();
      return { value: await batch.stage(author, subject, planned) };
    } catch (error) {
      if (error instanceof BranchMoved) throw error;
      return { error };
    }
  }

  /**
   * Only for use inside `exclusive` (the caller holds the queue). Uncommitted working-tree
   * edits to the planned paths are committed first (as `external`) so history keeps them;
   * a caller that plans from current contents calls `reconcile` before planning.
   */
  commitChanges(author: Author, subject: string, planned: FileChange[]): Promise<CommitEvent | undefined> {
    this.refuseSymlinks(planned);
    return this.inBatch(async (batch) => {
      await this.stageExternalEdits(
        batch,
        planned.filter((c) => !c.inWorkingTree).map((c) => c.path),
      );
      return batch.stage(author, subject, planned);
    });
  }

  /**
   * Only inside the queue: commits the working files at `paths` that differ from HEAD, as
   * the external author. `mutate` runs it on the paths it is about to write so an edit the
   * watcher has not committed yet is kept in history, not overwritten.
   */
  reconcile(paths: readonly string[], onSymlink?: OnSymlink): Promise<CommitEvent | undefined> {
    return this.inBatch((batch) => this.stageExternalEdits(batch, paths, onSymlink));
  }

  private async stageExternalEdits(batch: CommitBatch, paths: readonly string[], onSymlink?: OnSymlink): Promise<CommitEvent | undefined> {
    const changes = await diffWorkingFiles(this.dir, this.manifest, paths, (fd) => this.repo.storeFile(fd), onSymlink);
    if (changes.length === 0) return undefined;
    const subject = changes.length === 1 ? `External edit of ${changes[0].path}` : `External edits to ${changes.length} files`;
    return batch.stage(EXTERNAL_AUTHOR, subject, changes);
  }

  /**
   * Inside the queue: the commits `stage` makes on the head, landed at once; then the
   * listeners hear of each, in order. A throw from `stage` gives them all up.
   */
  private async inBatch<T>(stage: (batch: CommitBatch) => Promise<T>): Promise<T> {
    const batch = new CommitBatch(
      { repo: this.repo, manifest: this.manifest, index: this.index, now: this.now, log: this.log },
      this.headOid,
    );
    let result: T;
    try {
      result = await stage(batch);
    } catch (err) {
      await batch.abandon();
      throw err;
    }
    this.landing = batch.head;
    let events: CommitEvent[];
    try {
      events = await batch.land();
    } finally {
      this.landing = undefined;
    }
    if (events.length) this.headOid = batch.head;
    for (const event of events) await this.notify(event);
    return result;
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
