import git from 'isomorphic-git';
import fs, { promises as fsp } from 'node:fs';
import { join } from 'node:path';
import { atomicWriteFile } from '../atomic-file.js';
import { durableFs } from './durable-fs.js';
import { ObjectReader } from './object-reader.js';
import { serializeCommit, writeObject, type CommitFields } from './object-writer.js';
import { EMPTY_TREE, TreeStore } from './tree-store.js';

export const BRANCH = 'main';
const REF = `refs/heads/${BRANCH}`;

export type { CommitInfo, Signature } from './object-reader.js';

/**
 * Plumbing over one non-bare repository. Objects are read by our `ObjectReader` and
 * written by `object-writer.ts` (node's zlib; isomorphic-git's pako and re-hashing cost
 * most of the time on reads of many objects); refs are moved by us (atomic rename) so a
 * crash leaves them at the old or the new commit. isomorphic-git remains for what it does
 * once or rarely and where git's own formats have cases we would otherwise re-implement:
 * `init`, and resolving and listing refs (loose or in `packed-refs` after a `git gc`).
 * Callers serialize mutations (see WriteQueue); this class does no locking.
 */
export class GitRepo {
  readonly gitdir: string;
  /** The one reader of objects; its pack indexes are parsed once per repo, not per request. */
  readonly objects: ObjectReader;
  readonly trees: TreeStore;
  /** node's fs for isomorphic-git, recording the files it writes for `flushObjects`. */
  private readonly fs: typeof fs;
  /** Makes every object written so far durable; call before moving a ref to them. */
  readonly flushObjects: () => Promise<void>;
  /** Records an object file written outside isomorphic-git, for `flushObjects`. */
  private readonly trackObject: (path: string) => void;

  private constructor(readonly dir: string) {
    this.gitdir = join(dir, '.git');
    ({ fs: this.fs, flush: this.flushObjects, track: this.trackObject } = durableFs());
    this.objects = new ObjectReader(this.gitdir);
    this.trees = new TreeStore(
      (oid) => this.objects.tree(oid),
      this.gitdir,
      (path) => this.trackObject(path),
    );
  }

  /**
   * Opens the repo at `dir`, creating it (with an empty first commit) when absent. `dir` is
   * resolved once here: the data folder may live behind a symbolic link, while no link
   * inside the vault is ever followed (see symlinks.ts).
   */
  static async open(dir: string, now: () => Date = () => new Date()): Promise<GitRepo> {
    await fsp.mkdir(dir, { recursive: true });
    const repo = new GitRepo(await fsp.realpath(dir));
    if (!fs.existsSync(repo.gitdir)) {
      await git.init({ fs: repo.fs, dir: repo.dir, defaultBranch: BRANCH });
      const oid = await repo.commit({
        tree: EMPTY_TREE,
        parents: [],
        message: 'Initialize vault',
        author: { name: 'quire', email: 'quire@localhost' },
        when: now(),
      });
      await repo.moveRef(oid);
    }
    await repo.recoverStaleLocks();
    return repo;
  }

  /**
   * A crash between creating and renaming a lock file leaves it behind, and real git then
   * refuses to touch the ref. Only this process writes the vault, so any lock is stale.
   */
  private async recoverStaleLocks(): Promise<void> {
    for (const lock of [join(this.gitdir, `${REF}.lock`), join(this.gitdir, 'index.lock'), join(this.gitdir, 'HEAD.lock')]) {
      await fsp.rm(lock, { force: true });
    }
  }

  async head(): Promise<string> {
    return git.resolveRef({ fs: this.fs, gitdir: this.gitdir, ref: REF });
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
    return writeObject(this.gitdir, 'blob', data, this.trackObject);
  }

  async commit(input: CommitFields): Promise<string> {
    if (input.tree === EMPTY_TREE) await writeObject(this.gitdir, 'tree', Buffer.alloc(0), this.trackObject);
    return writeObject(this.gitdir, 'commit', serializeCommit(input), this.trackObject);
  }

  /** Points `ref` (the branch unless told) at `oid`: temp file, fsync, rename — git's own lock-file dance. */
  async moveRef(oid: string, ref = REF): Promise<void> {
    await this.flushObjects();
    await atomicWriteFile(join(this.gitdir, ref), `${oid}\n`);
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

export { hashBlob } from './hash-blob.js';
