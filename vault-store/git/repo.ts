import git from 'isomorphic-git';
import fs, { existsSync, promises as fsp, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { atomicWriteFile } from '../atomic-file.js';
import { storeBlobStream, uploadDir, type StoredBlob } from './blob-stream.js';
import { durableFs } from './durable-fs.js';
import { storeOpenFile } from './file-blob.js';
import { fileSystemOf, writeNewRepoConfig, type FileSystemProbe } from './fs-probe.js';
import { LockFile } from './lock-file.js';
import { removeOwnStaleLocks } from './lock-marks.js';
import { ObjectReader } from './object-reader.js';
import { serializeCommit, type CommitFields } from './object-writer.js';
import { MERGE_COUNT, mergeSmallPacks } from './pack-merge.js';
import { PendingObjects } from './pending-objects.js';
import { EMPTY_TREE, TreeStore } from './tree-store.js';

export const BRANCH = 'main';
export const BRANCH_REF = `refs/heads/${BRANCH}`;
const REF = BRANCH_REF;

/** The branch held under git's lock: its value when taken, and the one way to move it. */
export interface BranchLock {
  /** The commit the branch points at, read under the lock. */
  readonly current: string;
  /**
   * Writes `oid` into the lock file durably, the branch not moved yet: this fsync runs
   * alongside the objects' and working files', leaving `move` one rename and its folder's fsync.
   */
  prepare(oid: string): Promise<void>;
  /** Points the branch at the prepared commit (every object written made durable first) and releases the lock. */
  move(): Promise<void>;
  release(): Promise<void>;
}

export type { CommitInfo, Signature } from './object-reader.js';
export type { StoredBlob } from './blob-stream.js';
export type { ByteRange } from './inflate-stream.js';

/**
 * Plumbing over one non-bare repository. Objects are read by our `ObjectReader` and
 * written by us (node's zlib; isomorphic-git's pako and re-hashing cost most of the time on
 * reads of many objects): held in memory until `flushObjects` writes them as one pack
 * (`pending-objects.ts`), except uploads streamed into loose objects. Refs are moved by us
 * (atomic rename) so a crash leaves them at the old or the new commit, under git's lock
 * files so that git commands in the same folder serialise with us. isomorphic-git remains
 * for what it does once or rarely and where git's own formats have cases we would otherwise
 * re-implement:
 * `init`, and resolving and listing refs (loose or in `packed-refs` after a `git gc`).
 * Within the process, callers serialise mutations (see WriteQueue).
 */
export class GitRepo {
  readonly gitdir: string;
  /** The one reader of objects; its pack indexes are parsed once per repo, not per request. */
  readonly objects: ObjectReader;
  readonly trees: TreeStore;
  /** node's fs for isomorphic-git, recording the files it writes for `flushObjects`. */
  private readonly fs: typeof fs;
  /** fsyncs the loose object files written so far (streamed blobs, isomorphic-git's). */
  private readonly flushLoose: () => Promise<void>;
  /** Records a loose object file written outside isomorphic-git, for `flushObjects`. */
  private readonly trackObject: (path: string) => void;
  /** Blobs, trees and commits written and not yet in a pack (see PendingObjects). */
  private readonly pending = new PendingObjects();
  /** Packs written since small packs were last merged, and the merge running, if any. */
  private packsSinceMerge = 0;
  private merging: Promise<void> | undefined;
  /** What the file system can do, probed at open (and written to `core.*`). */
  fileSystem: FileSystemProbe = { ignorecase: false, symlinks: true, filemode: true };
  /** This open made the repository (it has no `.git/index` yet). */
  created = false;

  private constructor(
    readonly dir: string,
    /** How long a git lock someone else holds is waited for (LOCK_WAIT_MS unless told). */
    private readonly lockWaitMs?: number,
  ) {
    this.gitdir = join(dir, '.git');
    ({ fs: this.fs, flush: this.flushLoose, track: this.trackObject } = durableFs());
    this.objects = new ObjectReader(this.gitdir, this.pending);
    this.trees = new TreeStore(
      (oid) => this.objects.tree(oid),
      (body) => this.pending.add('tree', body),
    );
  }

  /**
   * Makes every object written so far durable (those held in memory as one pack); call before
   * moving a ref to them. Every MERGE_COUNT packs, small packs are merged in the background.
   */
  readonly flushObjects = async (): Promise<void> => {
    const [, pack] = await Promise.all([this.flushLoose(), this.pending.flush(this.gitdir, this.objects)]);
    if (pack !== undefined) this.packsSinceMerge++;
    this.mergeIfDue();
  };

  /**
   * Starts a merge once MERGE_COUNT packs were written since the last one began; a merge
   * that ends after that count was reached (writes went on meanwhile) is followed by the next
   * at once, not at the next write: under load one merge could outlast a burst of writes and
   * leave its packs unmerged.
   */
  private mergeIfDue(): void {
    if (this.packsSinceMerge < MERGE_COUNT || this.merging) return;
    this.packsSinceMerge = 0;
    this.merging = this.mergePacks().finally(() => {
      this.merging = undefined;
      this.mergeIfDue();
    });
  }

  /** Lets merges of packs running (and those due after them) finish: a vault closing, a test checking the folder. */
  async packsSettled(): Promise<void> {
    while (this.merging) await this.merging;
  }

  private async mergePacks(): Promise<void> {
    try {
      const done = await mergeSmallPacks(this.gitdir);
      if (done) await this.objects.packsChanged(done.base, done.merged);
    } catch {
      // The packs stay as they were, all valid; the next merge takes them.
    }
  }

  /**
   * Opens the repo at `dir`, creating it when absent with a first commit of `initialFiles`
   * (written to the folder too). `dir` is resolved once here: the data folder may live behind
   * a symbolic link, while no link inside the vault is ever followed (see symlinks.ts). The
   * first open probes the file system as `git init` does and corrects `core.ignorecase`,
   * `core.symlinks` and `core.filemode` when they say otherwise (vaults made before the probe
   * got isomorphic-git's fixed values); see fileSystemOf.
   */
  static async open(
    dir: string,
    options: { now?: () => Date; lockWaitMs?: number; initialFiles?: Record<string, string> } = {},
  ): Promise<GitRepo> {
    const now = options.now ?? (() => new Date());
    // The small steps of an open are synchronous: on a busy server each round trip of an
    // asynchronous one waited for the request running then (a reopen after an eviction).
    fs.mkdirSync(dir, { recursive: true });
    const repo = new GitRepo(fs.realpathSync(dir), options.lockWaitMs);
    if (!fs.existsSync(repo.gitdir)) {
      await git.init({ fs: repo.fs, dir: repo.dir, defaultBranch: BRANCH });
      await writeNewRepoConfig(repo.gitdir);
      const files = Object.entries(options.initialFiles ?? {});
      const changes = await Promise.all(files.map(async ([path, text]) => ({ path, oid: await repo.writeBlob(Buffer.from(text)) })));
      const oid = await repo.commit({
        tree: changes.length ? await repo.trees.apply(EMPTY_TREE, changes) : EMPTY_TREE,
        parents: [],
        message: 'Initialize vault',
        author: { name: 'quire', email: 'quire@localhost' },
        when: now(),
      });
      for (const [path, text] of files) await atomicWriteFile(join(repo.dir, path), text);
      await repo.moveRef(oid, REF);
      repo.created = true;
    }
    repo.fileSystem = await fileSystemOf(repo.gitdir);
    await excludeTempFiles(repo.gitdir);
    await removeOwnStaleLocks(repo.gitdir);
    // Uploads a crash or a refused write left behind; none is in flight while the vault opens.
    fs.rmSync(uploadDir(repo.gitdir), { recursive: true, force: true });
    return repo;
  }

  /**
   * The branch's commit, read now from the loose ref or `packed-refs` (git moves it too: a
   * commit, pull or push in the folder). Not through isomorphic-git, and synchronous: this
   * runs before every queued task, and a 41-byte read takes microseconds.
   */
  async head(): Promise<string> {
    let loose: string | undefined;
    try {
      loose = readFileSync(join(this.gitdir, REF), 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    }
    const oid = loose === undefined ? this.packedRef(REF) : loose.trim();
    if (oid === undefined || !/^[0-9a-f]{40}$/.test(oid)) throw new Error(`${REF} does not name a commit (${oid ?? 'missing'})`);
    return oid;
  }

  private packedRef(ref: string): string | undefined {
    const packed = existsSync(join(this.gitdir, 'packed-refs')) ? readFileSync(join(this.gitdir, 'packed-refs'), 'utf8') : '';
    const line = packed.split('\n').find((l) => l.endsWith(` ${ref}`));
    return line?.slice(0, 40);
  }

  /**
   * Takes git's lock on the branch (waiting while a git command holds it; VAULT_BUSY after
   * a few seconds) and reads its value under it: a commit made on `current` and moved with
   * `move` can neither lose nor be lost to a concurrent git commit, pull or push.
   */
  async lockBranch(): Promise<BranchLock> {
    const lock = await LockFile.acquire(this.gitdir, REF, { waitMs: this.lockWaitMs });
    let current: string;
    try {
      current = await this.head();
    } catch (err) {
      await lock.release();
      throw err;
    }
    return {
      current,
      prepare: async (oid) => {
        lock.write(`${oid}\n`);
        await lock.sync();
      },
      move: async () => {
        await this.flushObjects();
        await lock.commit(undefined, { durable: true });
      },
      release: () => lock.release(),
    };
  }

  /** The commit `ref` points at, or undefined when there is no such ref. */
  async resolveRef(ref: string): Promise<string | undefined> {
    return git.resolveRef({ fs: this.fs, gitdir: this.gitdir, ref }).catch(() => undefined);
  }

  /** Names of the refs under `prefix` (e.g. `refs/quire/proposals`), relative to it. */
  async listRefs(prefix: string): Promise<string[]> {
    return git.listRefs({ fs: this.fs, gitdir: this.gitdir, filepath: prefix }).catch(() => []);
  }

  async writeBlob(data: Uint8Array): Promise<string> {
    const oid = this.pending.add('blob', data);
    this.objects.remember(oid, data);
    return oid;
  }

  /** Streams bytes into a blob, never holding them whole (see storeBlobStream); the commit moves `file` into the folder. */
  storeBlob(source: AsyncIterable<Uint8Array>, options: { size?: number; maxBytes: number }): Promise<StoredBlob> {
    return storeBlobStream(this.gitdir, source, options, this.trackObject);
  }

  /** Stores an open working file as a blob, read as a stream (see storeOpenFile). */
  storeFile(fd: number): Promise<{ oid: string; size: number }> {
    return storeOpenFile(this.gitdir, fd, this.trackObject);
  }

  async commit(input: CommitFields): Promise<string> {
    if (input.tree === EMPTY_TREE) this.pending.add('tree', Buffer.alloc(0));
    return this.pending.add('commit', serializeCommit(input));
  }

  /** Points `ref` at `oid` under its lock, durably: the branch only at creation (later, see lockBranch). */
  async moveRef(oid: string, ref: string): Promise<void> {
    await this.flushObjects();
    const lock = await LockFile.acquire(this.gitdir, ref, { waitMs: this.lockWaitMs });
    await lock.commit(`${oid}\n`, { durable: true });
  }

  /** True when `oid` is `head` or one of its ancestors (any parent, not only the first). */
  async isAncestor(oid: string, head: string): Promise<boolean> {
    if (oid === head) return true;
    const seen = new Set([head]);
    const queue = [head];
    try {
      while (queue.length) {
        for (const parent of (await this.objects.commit(queue.pop()!)).parents) {
          if (parent === oid) return true;
          if (seen.has(parent)) continue;
          seen.add(parent);
          queue.push(parent);
        }
      }
    } catch {
      // A missing or malformed commit on the way: `oid` cannot be shown to be an ancestor.
    }
    return false;
  }
}

/** The names of our temp files (`tempNameFor`), for git to ignore while one exists. */
const TEMP_PATTERN = '.*.quire-tmp-*';

/**
 * Adds our temp files' pattern to `.git/info/exclude`, so that `git status` run while the
 * server is writing a file (or after a crash left one) does not list it as untracked.
 */
async function excludeTempFiles(gitdir: string): Promise<void> {
  const file = join(gitdir, 'info', 'exclude');
  let text = '';
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch {
    // None yet.
  }
  if (text.split('\n').includes(TEMP_PATTERN)) return;
  await fsp.mkdir(join(gitdir, 'info'), { recursive: true });
  const line = `# Quire's temp files while it writes a page\n${TEMP_PATTERN}\n`;
  await fsp.appendFile(file, text === '' || text.endsWith('\n') ? line : `\n${line}`);
}

export { hashBlob } from './hash-blob.js';
