import git from 'isomorphic-git';
import fs, { promises as fsp } from 'node:fs';
import { join } from 'node:path';
import { atomicWriteFile } from '../atomic-file.js';
import { objectReaderFor } from '../history/object-reader.js';
import { durableFs } from './durable-fs.js';
import { serializeCommit, writeObject, type CommitFields } from './object-writer.js';
import { EMPTY_TREE, TreeStore } from './tree-store.js';

export const BRANCH = 'main';
const REF = `refs/heads/${BRANCH}`;

export interface Signature {
  name: string;
  email: string;
}

export interface CommitInfo {
  oid: string;
  tree: string;
  parents: string[];
  message: string;
  author: Signature & { timestamp: number };
}

/**
 * Plumbing over one non-bare repository: objects through isomorphic-git, the branch ref
 * moved by us (atomic rename) so a crash leaves it at the old or the new commit.
 * Callers serialize mutations (see WriteQueue); this class does no locking.
 */
export class GitRepo {
  readonly gitdir: string;
  readonly fs: typeof fs;
  /** Makes every object written so far durable; call before moving a ref to them. */
  readonly flushObjects: () => Promise<void>;
  /** Records an object file written outside isomorphic-git, for `flushObjects`. */
  readonly trackObject: (path: string) => void;
  /** isomorphic-git's long-lived cache (packfile indexes). */
  readonly cache = {};
  readonly trees: TreeStore;

  private constructor(readonly dir: string) {
    this.gitdir = join(dir, '.git');
    ({ fs: this.fs, flush: this.flushObjects, track: this.trackObject } = durableFs());
    this.trees = new TreeStore((oid) => objectReaderFor(this).tree(oid), this.gitdir, (path) => this.trackObject(path));
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
      const oid = await repo.commit({ tree: EMPTY_TREE, parents: [], message: 'Initialize vault', author: { name: 'quire', email: 'quire@localhost' }, when: now() });
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

  async readCommit(oid: string): Promise<CommitInfo> {
    const { commit } = await git.readCommit({ fs: this.fs, gitdir: this.gitdir, oid, cache: this.cache });
    return { oid, tree: commit.tree, parents: commit.parent, message: commit.message, author: commit.author };
  }

  async readBlob(oid: string): Promise<Uint8Array> {
    const { blob } = await git.readBlob({ fs: this.fs, gitdir: this.gitdir, oid, cache: this.cache });
    return blob;
  }

  async writeBlob(data: Uint8Array): Promise<string> {
    return writeObject(this.gitdir, 'blob', data, this.trackObject);
  }

  async commit(input: CommitFields): Promise<string> {
    if (input.tree === EMPTY_TREE) await writeObject(this.gitdir, 'tree', Buffer.alloc(0), this.trackObject);
    return writeObject(this.gitdir, 'commit', serializeCommit(input), this.trackObject);
  }

  /** Points the branch at `oid`: temp file, fsync, rename — git's own lock-file dance. */
  async moveRef(oid: string): Promise<void> {
    await this.flushObjects();
    await atomicWriteFile(join(this.gitdir, REF), `${oid}\n`);
  }

  /** True when `oid` is `head` or one of its ancestors. */
  async isAncestor(oid: string, head: string): Promise<boolean> {
    if (oid === head) return true;
    try {
      return await git.isDescendent({ fs: this.fs, gitdir: this.gitdir, oid: head, ancestor: oid, depth: -1, cache: this.cache });
    } catch {
      return false;
    }
  }
}

export { hashBlob } from './hash-blob.js';
