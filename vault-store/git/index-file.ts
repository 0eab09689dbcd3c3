import { existsSync, lstatSync, promises as fsp, statSync, writeFileSync, type BigIntStats } from 'node:fs';
import { join } from 'node:path';
import { entryFromStat, fileTime, matchesBlob, NO_FLAGS, sameStat } from './index-entry.js';
import { INDEX_HASH_SIZE, IndexFileError, parseIndex, ZERO_STAT, type IndexEntry } from './index-format.js';
import { SortedIndex } from './index-memory.js';
import { LockFile } from './lock-file.js';

/** Beside `.git/index` (see GitIndex.writtenFor); git leaves files it does not know in the git folder alone. */
const INDEX_NOTE = 'quire-index';

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
  /**
   * Takes the entries for `changes` now (the working files' stat data as just written) and
   * keeps them, with the lock, for whoever locks the index next in this process: the next
   * batch writes them with its own, or `GitIndex.writeOwed` does. See GitIndex.lock.
   */
  defer(changes: readonly IndexChange[], worktree: string, tree?: string): Promise<void>;
  /** Gives the lock up; index changes carried into it from earlier batches are written first. */
  release(): Promise<void>;
}

/** Index entries of batches whose branch has moved, not yet written, and the lock kept for them. */
interface Owed {
  lock: LockFile;
  /** Path → its entry, or null for a path deleted. */
  entries: Map<string, IndexEntry | null>;
  tree: string | undefined;
  worktree: string;
  /** When (performance.now()) the first of these entries was deferred. */
  since: number;
}

export interface GitIndexOptions {
  gitdir: string;
  /** How long to wait for a git command holding index.lock; LOCK_WAIT_MS by default. */
  waitMs?: number;
  /** core.filemode: whether the executable bit counts when a change gives no mode; default true. */
  fileMode?: boolean;
}

/**
 * Keeps `<gitdir>/index` in git's format for the paths the server commits, so `git status` in
 * a vault folder is clean. The parsed entries stay in memory (git's order) while the file on
 * disk is the one we last read or wrote (same size, mtime and inode); a `git add` makes us re-read.
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
  /**
   * Paths whose entries may be as new as the next index the server writes (git's racy
   * entries): those it put since, and those found as new as the last one. Undefined after a
   * read from disk: then every entry is looked at once. Without it, each batch went over all
   * 10k entries of a 10k-page vault's index to find the three or four that can be racy.
   */
  #racy: Set<string> | undefined;
  /** index.lock kept, with the entries of batches that deferred their index write (see IndexLock.defer). */
  #owed: Owed | undefined;

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
   * A lock kept by `defer` is handed over as it is, with the entries owed: the index written
   * under it holds them too.
   */
  async lock(): Promise<IndexLock> {
    const owed = this.#owed;
    this.#owed = undefined;
    const lock = owed?.lock ?? (await LockFile.acquire(this.#gitdir, 'index', { waitMs: this.#waitMs }));
    const carried = owed?.entries ?? new Map<string, IndexEntry | null>();
    let prepared: SortedIndex | undefined;
    let note: string | undefined;
    let used = false;
    const prepare = async (build: () => Promise<SortedIndex>, tree: string | undefined) => {
      if (used) throw new Error('the index lock was already used');
      used = true;
      try {
        prepared = await build();
        const bytes = await prepared.toBuffer();
        lock.write(bytes);
        if (tree !== undefined) note = `${tree} ${bytes.toString('hex', bytes.length - INDEX_HASH_SIZE)}\n`;
      } catch (err) {
        this.#forget(); // may hold changes that never reach the disk
        await lock.release();
        throw err;
      }
    };
    const commit = async () => {
      if (!prepared) throw new Error('nothing prepared in the index lock');
      try {
        await lock.commit();
      } catch (err) {
        this.#forget();
        throw err;
      }
      this.#index = prepared;
      const stamp = statSync(this.#indexPath, { bigint: true });
      // A clock set back could make older entries as new as the index again: look at them all.
      if (this.#stamp && stamp.mtimeNs < this.#stamp.mtimeNs) this.#racy = undefined;
      this.#stamp = stamp;
      // Written in place after the index, never before: a note naming an index that is not
      // on disk would make an open trust it. Derived, so not fsynced; a torn note matches nothing.
      if (note !== undefined) writeFileSync(this.#notePath, note);
    };
    const apply = async (changes: readonly IndexChange[], worktree: string, tree: string | undefined) => {
      await prepare(() => this.#applied(changes, worktree, carried), tree ?? owed?.tree);
      await commit();
    };
    return {
      prepare: (changes, worktree, tree) => prepare(() => this.#applied(changes, worktree, carried), tree),
      commit,
      apply,
      rebuild: async (files, worktree, tree) => {
        await prepare(async () => SortedIndex.fromEntries(await this.#entriesFor(files, worktree)), tree);
        await commit();
      },
      defer: async (changes, worktree, tree) => {
        if (used) throw new Error('the index lock was already used');
        used = true;
        try {
          const written = changes.filter((c): c is IndexChange & { oid: string } => c.oid !== null);
          const fresh = new Map((await this.#entriesFor(written, worktree)).map((e) => [e.path, e]));
          for (const c of changes) carried.set(c.path, c.oid === null ? null : fresh.get(c.path)!);
        } catch (err) {
          await lock.release();
          throw err;
        }
        this.#owed = { lock, entries: carried, tree: tree ?? owed?.tree, worktree, since: owed?.since ?? performance.now() };
      },
      release: async () => {
        if (prepared) this.#forget(); // holds changes that never reached the disk
        // The branch has moved for the entries carried: they are due whatever became of this use.
        if (!used && carried.size > 0) return apply([], owed!.worktree, undefined);
        await lock.release();
      },
    };
  }

  /** Writes the entries a batch deferred (see IndexLock.defer), if any, and releases index.lock. */
  async writeOwed(): Promise<void> {
    const owed = this.#owed;
    if (owed) await (await this.lock()).apply([], owed.worktree, owed.tree);
  }

  /** How long index.lock has been kept for entries batches deferred, in ms (0 when none are). */
  get owedFor(): number {
    return this.#owed ? performance.now() - this.#owed.since : 0;
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

  async #applied(changes: readonly IndexChange[], worktree: string, carried: ReadonlyMap<string, IndexEntry | null>): Promise<SortedIndex> {
    const written = changes.filter((c): c is IndexChange & { oid: string } => c.oid !== null);
    const fresh = new Map((await this.#entriesFor(written, worktree)).map((e) => [e.path, e]));
    const index = await this.#load();
    await this.#smudgeRacy(index, worktree);
    for (const [path, entry] of carried) {
      if (entry) index.put(entry);
      else index.remove(path);
      this.#racy?.add(path);
    }
    for (const c of changes) {
      const entry = c.oid === null ? undefined : fresh.get(c.path);
      if (entry) index.put(entry);
      else index.remove(c.path);
      this.#racy?.add(c.path);
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

  /**
   * Git's racy-clean rule: an entry as new as the index file it was saved in is smudged (size 0)
   * if the file changed since. Only the entries that can be that new are looked at (#racy).
   */
  async #smudgeRacy(index: SortedIndex, worktree: string): Promise<void> {
    const entries = index.entries;
    if (!this.#stamp) return;
    const [sec, nsec] = fileTime(this.#stamp.mtimeNs, 0);
    const racy = new Set<string>();
    const check = async (i: number) => {
      const e = entries[i];
      const s = e.stat;
      if (s.size === 0 || s.mtimeSec < sec || (s.mtimeSec === sec && s.mtimeNsec < nsec)) return;
      racy.add(e.path);
      await this.#smudgeIfChanged(index, i, worktree);
    };
    if (this.#racy === undefined) for (let i = 0; i < entries.length; i++) await check(i);
    else for (const path of this.#racy) for (let i = index.lowerBound(path); entries[i]?.path === path; i++) await check(i);
    this.#racy = racy;
  }

  async #smudgeIfChanged(index: SortedIndex, i: number, worktree: string): Promise<void> {
    const e = index.entries[i];
    const s = e.stat;
    const file = join(worktree, e.path);
    const st = await fsp.lstat(file, { bigint: true }).catch(() => undefined);
    // A changed stat already tells git to look; only an unchanged stat over changed bytes needs the smudge.
    if (
      st &&
      sameStat(s, entryFromStat(e.path, e.oid, e.mode, st).stat) &&
      !(await matchesBlob(file, st, e.oid, undefined).catch(() => false))
    ) {
      index.replace(i, { ...e, stat: { ...s, size: 0 } });
    }
  }

  async #load(): Promise<SortedIndex> {
    // Synchronous stats here and below: one call each per write, microseconds (see LockFile).
    const st = statSync(this.#indexPath, { bigint: true, throwIfNoEntry: false });
    if (!st) throw new IndexFileError('missing', '.git/index does not exist');
    const s = this.#stamp;
    if (this.#index && s && s.size === st.size && s.mtimeNs === st.mtimeNs && s.ino === st.ino) return this.#index;
    this.#forget();
    const bytes = await fsp.readFile(this.#indexPath);
    const { entries, records } = parseIndex(bytes);
    this.#index = SortedIndex.fromFile(bytes, entries, records);
    this.#stamp = st;
    return this.#index;
  }

  /** Drops the entries held: the next use reads the file. */
  #forget(): void {
    this.#index = undefined;
    this.#racy = undefined;
  }
}
