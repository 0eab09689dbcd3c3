import { existsSync, lstatSync, promises as fsp, readFileSync, statSync, type BigIntStats, type Stats } from 'node:fs';
import { join } from 'node:path';
import { hashBlob } from './hash-blob.js';
import { INDEX_HASH_SIZE, IndexFileError } from './index-format.js';
import { ZERO_STAT, type IndexEntry, type IndexStat } from './index-record.js';
import { SortedIndex } from './index-memory.js';
import { LockFile } from './lock-file.js';

/** Beside `.git/index` (see GitIndex.writtenFor); git leaves files it does not know in the git folder alone. */
const INDEX_NOTE = 'quire-index';

const u32 = (n: number | bigint): number => (typeof n === 'bigint' ? Number(BigInt.asUintN(32, n)) : n >>> 0);
const NO_FLAGS = Object.freeze({ assumeValid: false, skipWorktree: false, intentToAdd: false });

function time(ns: bigint | undefined, ms: number): [number, number] {
  if (ns !== undefined) return [u32(ns / 1_000_000_000n), Number(ns % 1_000_000_000n)];
  const sec = Math.floor(ms / 1000); // number stats carry ~µs precision only: pass BigIntStats for exact nanoseconds
  return [u32(sec), Math.min(999_999_999, Math.round((ms - sec * 1000) * 1e6))];
}

/**
 * A stage-0 entry for a working file, with git's stat data (uint32 fields, size mod 2^32).
 * `mode` is the tree's mode; without it the stat decides: symlink 120000, else 100755 when
 * the owner may execute and `fileMode` (core.filemode) is on, else 100644.
 */
export function entryFromStat(path: string, oid: string, mode: number | undefined, stat: Stats | BigIntStats, fileMode = true): IndexEntry {
  const big = 'ctimeNs' in stat;
  const [ctimeSec, ctimeNsec] = time(big ? stat.ctimeNs : undefined, Number(stat.ctimeMs));
  const [mtimeSec, mtimeNsec] = time(big ? stat.mtimeNs : undefined, Number(stat.mtimeMs));
  const executable = fileMode && (Number(stat.mode) & 0o100) !== 0;
  return {
    path,
    oid,
    mode: mode ?? (stat.isSymbolicLink() ? 0o120000 : executable ? 0o100755 : 0o100644),
    stage: 0,
    flags: NO_FLAGS,
    stat: {
      ctimeSec,
      ctimeNsec,
      mtimeSec,
      mtimeNsec,
      dev: u32(stat.dev),
      ino: u32(stat.ino),
      uid: u32(stat.uid),
      gid: u32(stat.gid),
      size: u32(stat.size),
    },
  };
}

/** A path the server wrote (`oid`) or deleted (`oid: null`); `size`, when known, spares hashing the working file. */
export interface IndexChange {
  path: string;
  oid: string | null;
  mode?: number;
  size?: number;
}

/** A whole tree's files, as `rebuild` takes them. */
export type IndexFiles = readonly { path: string; oid: string; mode: number }[];

/**
 * The index held under git's lock: write the server's changes once, or let it go untouched.
 * `tree`, when given, is the tree the branch holds once this index is in place: noted beside
 * it (see GitIndex.writtenFor) so that an open after a crash between moving the branch and
 * writing the index finds the index behind.
 */
export interface IndexLock {
  /**
   * Builds the index with `changes` (see GitIndex.update) into the lock file, not yet in
   * place: the write path does this while the branch's fsync runs, then calls `commit`.
   */
  prepare(changes: readonly IndexChange[], worktree: string, tree?: string): Promise<void>;
  /** Puts the prepared index in place and releases the lock. */
  commit(): Promise<void>;
  /** Applies `changes` (prepare, then commit). */
  apply(changes: readonly IndexChange[], worktree: string, tree?: string): Promise<void>;
  /** Writes a whole index for `files` (see GitIndex.rebuild) and releases the lock. */
  rebuild(files: IndexFiles, worktree: string, tree?: string): Promise<void>;
  release(): Promise<void>;
}

export interface GitIndexOptions {
  gitdir: string;
  /** How long to wait for a git command holding index.lock; LOCK_WAIT_MS by default. */
  waitMs?: number;
  /** core.filemode: whether the executable bit counts when a change gives no mode; default true. */
  fileMode?: boolean;
}

async function matchesBlob(file: string, st: BigIntStats, oid: string, size: number | undefined): Promise<boolean> {
  if (size !== undefined) return st.size === BigInt(size);
  const data = st.isSymbolicLink() ? await fsp.readlink(file, { encoding: 'buffer' }) : await fsp.readFile(file);
  return hashBlob(data) === oid;
}

/**
 * Keeps `<gitdir>/index` in git's format for the paths the server commits, so `git status` in
 * a vault folder is clean. The file's records stay in memory (git's order; SortedIndex) while
 * the file on disk is the one we last read or wrote (same size, mtime and inode); a `git add`
 * makes us re-read.
 */
export class GitIndex {
  readonly #gitdir: string;
  readonly #indexPath: string;
  /** `<tree> <checksum>`: the tree the server last wrote the index for, and that index's trailing SHA-1. */
  readonly #notePath: string;
  readonly #waitMs: number | undefined;
  readonly #fileMode: boolean;
  #index: SortedIndex | undefined;
  #stamp: BigIntStats | undefined;

  constructor(options: GitIndexOptions) {
    this.#gitdir = options.gitdir;
    this.#indexPath = join(options.gitdir, 'index');
    this.#notePath = join(options.gitdir, INDEX_NOTE);
    this.#waitMs = options.waitMs;
    this.#fileMode = options.fileMode ?? true;
  }

  /**
   * Takes index.lock (waiting while git holds it; VAULT_BUSY after the wait). The server
   * takes it before the branch's lock, as `git commit` does, so the two never deadlock and a
   * commit in progress in the folder (its editor open) is waited for rather than overtaken.
   */
  async lock(): Promise<IndexLock> {
    const lock = await LockFile.acquire(this.#gitdir, 'index', { waitMs: this.#waitMs });
    let prepared: SortedIndex | undefined;
    let note: string | undefined;
    let used = false;
    const prepare = async (build: () => Promise<SortedIndex>, tree: string | undefined) => {
      if (used) throw new Error('the index lock was already used');
      used = true;
      try {
        prepared = await build();
        const bytes = prepared.toBuffer();
        lock.write(bytes);
        if (tree !== undefined) note = `${tree} ${bytes.toString('hex', bytes.length - INDEX_HASH_SIZE)}\n`;
      } catch (err) {
        this.#index = undefined; // may hold changes that never reach the disk
        await lock.release();
        throw err;
      }
    };
    const commit = async () => {
      if (!prepared) throw new Error('nothing prepared in the index lock');
      try {
        await lock.commit();
      } catch (err) {
        this.#index = undefined;
        throw err;
      }
      this.#index = prepared;
      this.#stamp = statSync(this.#indexPath, { bigint: true });
      // Written in place after the index, never before: a note naming an index that is not
      // on disk would make an open trust it. Derived, so not fsynced; a torn note matches nothing.
      // Off the event loop: truncating a file waits for ext4's journal as a rename does.
      if (note !== undefined) await fsp.writeFile(this.#notePath, note);
    };
    return {
      prepare: (changes, worktree, tree) => prepare(() => this.#applied(changes, worktree), tree),
      commit,
      apply: async (changes, worktree, tree) => {
        await prepare(() => this.#applied(changes, worktree), tree);
        await commit();
      },
      rebuild: async (files, worktree, tree) => {
        await prepare(async () => SortedIndex.fromEntries(await this.#entriesFor(files, worktree)), tree);
        await commit();
      },
      release: async () => {
        if (prepared) this.#index = undefined; // holds changes that never reached the disk
        await lock.release();
      },
    };
  }

  /** Applies `changes` under index.lock. Throws IndexFileError when the index is missing or corrupt (call `rebuild`) or unsupported (leave it). */
  async update(changes: readonly IndexChange[], worktree: string, tree?: string): Promise<void> {
    if (changes.length === 0) return;
    await (await this.lock()).apply(changes, worktree, tree);
  }

  /** Writes a whole index for a tree's files (when .git/index is missing or unreadable). */
  async rebuild(files: IndexFiles, worktree: string, tree?: string): Promise<void> {
    await (await this.lock()).rebuild(files, worktree, tree);
  }

  /** True when there is no `.git/index` (a new repository, or one whose index was deleted). */
  get missing(): boolean {
    return !existsSync(this.#indexPath);
  }

  /**
   * The tree the server last wrote `.git/index` for, when the index on disk is still that
   * file (its trailing SHA-1 is the one noted); undefined when git has written it since, or
   * nothing was noted. Reads the note and the index's last 20 bytes only.
   */
  async writtenFor(): Promise<string | undefined> {
    const note = /^([0-9a-f]{40}) ([0-9a-f]{40})\n$/.exec(await fsp.readFile(this.#notePath, 'latin1').catch(() => ''));
    if (!note) return undefined;
    const file = await fsp.open(this.#indexPath).catch(() => undefined);
    if (!file) return undefined;
    try {
      const { size } = await file.stat();
      if (size < INDEX_HASH_SIZE) return undefined;
      const { buffer } = await file.read(Buffer.alloc(INDEX_HASH_SIZE), 0, INDEX_HASH_SIZE, size - INDEX_HASH_SIZE);
      return buffer.toString('hex') === note[2] ? note[1] : undefined;
    } finally {
      await file.close();
    }
  }

  async #applied(changes: readonly IndexChange[], worktree: string): Promise<SortedIndex> {
    const written = changes.filter((c): c is IndexChange & { oid: string } => c.oid !== null);
    const fresh = new Map((await this.#entriesFor(written, worktree)).map((e) => [e.path, e]));
    const index = await this.#load();
    await this.#smudgeRacy(index, worktree);
    for (const c of changes) {
      const entry = c.oid === null ? undefined : fresh.get(c.path);
      if (entry) index.put(entry);
      else index.remove(c.path);
    }
    return index;
  }

  /** Entries for working files, a few dozen stats (and reads) at a time. */
  async #entriesFor(
    files: readonly { path: string; oid: string; mode?: number; size?: number }[],
    worktree: string,
  ): Promise<IndexEntry[]> {
    const entries: IndexEntry[] = [];
    for (let at = 0; at < files.length; at += 32) {
      const batch = files.slice(at, at + 32);
      entries.push(...(await Promise.all(batch.map((f) => this.#entryFor(f.path, f.oid, f.mode, f.size, worktree)))));
    }
    return entries;
  }

  async #entryFor(path: string, oid: string, mode: number | undefined, size: number | undefined, worktree: string): Promise<IndexEntry> {
    const file = join(worktree, path);
    const st = lstatSync(file, { bigint: true, throwIfNoEntry: false });
    // Zeroed stat data makes git compare the content itself instead of trusting the stat.
    if (!st) return { path, oid, mode: mode ?? 0o100644, stage: 0, flags: NO_FLAGS, stat: { ...ZERO_STAT } };
    const entry = entryFromStat(path, oid, mode, st, this.#fileMode);
    const type = entry.mode & 0o170000;
    const sameType = type === 0o120000 ? st.isSymbolicLink() : type === 0o100000 && st.isFile();
    if (!sameType || !(await matchesBlob(file, st, oid, size).catch(() => false))) entry.stat = { ...ZERO_STAT };
    return entry;
  }

  /** Git's racy-clean rule: an entry as new as the index file it was saved in is smudged (size 0) if the file changed since. */
  async #smudgeRacy(index: SortedIndex, worktree: string): Promise<void> {
    if (!this.#stamp) return;
    const [sec, nsec] = time(this.#stamp.mtimeNs, 0);
    for (const i of index.recent(sec, nsec)) {
      const e = index.entry(i);
      const file = join(worktree, e.path);
      const st = await fsp.lstat(file, { bigint: true }).catch(() => undefined);
      // A changed stat already tells git to look; only an unchanged stat over changed bytes needs the smudge.
      if (
        st &&
        sameStat(e.stat, entryFromStat(e.path, e.oid, e.mode, st).stat) &&
        !(await matchesBlob(file, st, e.oid, undefined).catch(() => false))
      ) {
        index.replace(i, { ...e, stat: { ...e.stat, size: 0 } });
      }
    }
  }

  async #load(): Promise<SortedIndex> {
    // Synchronous stats here and below: one call each per write, microseconds (see LockFile).
    const st = statSync(this.#indexPath, { bigint: true, throwIfNoEntry: false });
    if (!st) throw new IndexFileError('missing', '.git/index does not exist');
    const s = this.#stamp;
    if (this.#index && s && s.size === st.size && s.mtimeNs === st.mtimeNs && s.ino === st.ino) return this.#index;
    this.#index = undefined;
    const bytes = await fsp.readFile(this.#indexPath);
    // A split index's shared part, read only after git has split the index (core.splitIndex).
    this.#index = SortedIndex.fromFile(bytes, (base) => readIfPresent(join(this.#gitdir, `sharedindex.${base}`)));
    this.#stamp = st;
    return this.#index;
  }
}

function readIfPresent(file: string): Buffer | undefined {
  try {
    return readFileSync(file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
}

function sameStat(a: IndexStat, b: IndexStat): boolean {
  return (
    a.mtimeSec === b.mtimeSec &&
    a.mtimeNsec === b.mtimeNsec &&
    a.ctimeSec === b.ctimeSec &&
    a.ctimeNsec === b.ctimeNsec &&
    a.ino === b.ino &&
    a.size === b.size
  );
}
