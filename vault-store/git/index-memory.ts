import { compareEntries, INDEX_HASH_SIZE, INDEX_HEADER_SIZE, IndexFileError, scanIndex, writeIndexHeader } from './index-format.js';
import { linkBase, mergeSplit, parseLink } from './index-split.js';
import { ResumableSha1 } from './resumable-sha1.js';
import {
  decodeRecord,
  encodeEntry,
  isExtendedRecord,
  isRecentRecord,
  recordNameAt,
  recordNameEnd,
  type IndexEntry,
} from './index-record.js';

/**
 * The entries of one index in git's order, each entry's bytes kept where they already are: a
 * span of the file last read or written, or a fresh record of a changed entry. Writing copies
 * the unchanged runs whole, so changing one path of a 10k-entry index costs a memcpy and a
 * SHA-1, not a re-encode of every entry. Nothing else is held per entry: an entry is decoded
 * from its record when asked for, and paths are compared as the records' bytes (an object per
 * entry, path and oid strings and stat object, was 59 MB of heap at 100k entries).
 */
export class SortedIndex {
  #bytes: Buffer;
  /** Where entry i's record lies in #bytes, unless #fresh[i] holds it. */
  #starts: number[];
  #ends: number[];
  #fresh: (Buffer | undefined)[];
  /** The memory of the file before #bytes, ours to overwrite: a fresh 1 MB allocation costs more than the SHA-1. */
  #spare: ArrayBuffer | undefined;
  #ownsBytes = false;
  /**
   * The record spans before the last write, refilled by the next: at 100k entries three fresh
   * arrays a write were 2.4 MB of old-generation garbage (arrays that large are allocated there),
   * most of what a burst of writes grew the heap by before a collection.
   */
  #spareStarts: number[] = [];
  #spareEnds: number[] = [];
  /** The trailer's hash, resumed past the records that did not move since the last write. */
  readonly #sha = new ResumableSha1();
  /** The header of the file last written here (#bytes, when #ownsBytes). */
  #header = { count: -1, extended: false };
  /**
   * Entries before this position are as #bytes has them, at the same offsets (nothing before
   * them was put, removed or replaced since): toBuffer lays out only the rest.
   */
  #dirtyFrom = 0;

  private constructor(bytes: Buffer, starts: number[], ends: number[], fresh: (Buffer | undefined)[]) {
    this.#bytes = bytes;
    this.#starts = starts;
    this.#ends = ends;
    this.#fresh = fresh;
  }

  /**
   * An index file's entries (see scanIndex): records inside `bytes` (versions 2, 3) are reused,
   * others kept as fresh. A split index is merged with its shared index, which `shared(base)`
   * reads (see index-split.ts); the records then point into the shared index's bytes.
   */
  static fromFile(bytes: Buffer, shared: (base: string) => Buffer | undefined = () => undefined): SortedIndex {
    const records = scanIndex(bytes);
    if (!records.link) return new SortedIndex(bytes, records.starts, records.ends, records.fresh);
    const base = linkBase(records.link);
    const sharedBytes = shared(base);
    if (!sharedBytes) throw new IndexFileError('corrupt', `.git/index is split and its shared index sharedindex.${base} is missing`);
    const sharedRecords = scanIndex(sharedBytes);
    if (sharedRecords.link || sharedBytes.toString('hex', sharedBytes.length - INDEX_HASH_SIZE) !== base) {
      throw new IndexFileError('corrupt', `.git/index is corrupt: sharedindex.${base} is not the index it names`);
    }
    const link = parseLink(records.link, sharedRecords.starts.length);
    const { starts, ends, fresh } = mergeSplit(records, bytes, sharedRecords, sharedBytes, link);
    return new SortedIndex(sharedBytes, starts, ends, fresh);
  }

  /** From entries in any order; they must not repeat a (path, stage). */
  static fromEntries(entries: IndexEntry[]): SortedIndex {
    const sorted = [...entries].sort(compareEntries);
    return new SortedIndex(
      Buffer.alloc(0),
      sorted.map(() => -1),
      sorted.map(() => -1),
      sorted.map(encodeEntry),
    );
  }

  get size(): number {
    return this.#starts.length;
  }

  /** Entry i, decoded from its record. */
  entry(i: number): IndexEntry {
    return decodeRecord(this.#fresh[i] ?? this.#bytes, this.#at(i));
  }

  /** Positions of the entries that git's racy-clean rule may concern: a nonzero size, an mtime not before (sec, nsec). */
  recent(sec: number, nsec: number): number[] {
    const found: number[] = [];
    const [bytes, starts, fresh] = [this.#bytes, this.#starts, this.#fresh];
    for (let i = 0; i < starts.length; i++) {
      const record = fresh[i];
      if (isRecentRecord(record ?? bytes, record ? 0 : starts[i], sec, nsec)) found.push(i);
    }
    return found;
  }

  /** Where entry i's record begins in its buffer (#fresh[i], or #bytes). */
  #at(i: number): number {
    return this.#fresh[i] ? 0 : this.#starts[i];
  }

  /**
   * How entry i's path sorts against `key` (a path's UTF-8: git's order is the bytes'), or
   * whether it begins with `key` when `prefix` (0 then).
   */
  #compare(i: number, key: Buffer, prefix = false): number {
    const buf = this.#fresh[i] ?? this.#bytes;
    const at = this.#at(i);
    const nameAt = recordNameAt(buf, at);
    const end = recordNameEnd(buf, at);
    return -key.compare(buf, nameAt, prefix ? Math.min(end, nameAt + key.length) : end);
  }

  /** The first position whose path is not before `key`. */
  #lowerBound(key: Buffer): number {
    let lo = 0;
    let hi = this.#starts.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.#compare(mid, key) < 0) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** Removes the entries (every stage) whose path is `path`, or starts with it when `prefix`. */
  remove(path: string, prefix = false): void {
    const key = Buffer.from(path);
    const start = this.#lowerBound(key);
    let end = start;
    while (end < this.#starts.length && this.#compare(end, key, prefix) === 0) end++;
    if (end === start) return;
    for (const list of [this.#starts, this.#ends, this.#fresh]) list.splice(start, end - start);
    this.#dirtyFrom = Math.min(this.#dirtyFrom, start);
  }

  /** Puts a stage-0 entry for a path the server wrote, replacing what stood there: the path, a folder of that name, a file named like a parent folder. */
  put(entry: IndexEntry): void {
    const path = entry.path;
    this.remove(`${path}/`, true);
    for (let slash = path.indexOf('/'); slash >= 0; slash = path.indexOf('/', slash + 1)) this.remove(path.slice(0, slash));
    const key = Buffer.from(path);
    const at = this.#lowerBound(key);
    let end = at;
    while (end < this.#starts.length && this.#compare(end, key) === 0) end++;
    // A path already there (the usual write) takes the place of its first record: splicing
    // it out and in again moved three arrays of 100k numbers twice.
    if (end > at) for (const list of [this.#starts, this.#ends, this.#fresh]) list.splice(at + 1, end - at - 1);
    else for (const list of [this.#starts, this.#ends]) list.splice(at, 0, -1);
    if (end === at) this.#fresh.splice(at, 0, encodeEntry(entry));
    else this.#fresh[at] = encodeEntry(entry);
    this.#dirtyFrom = Math.min(this.#dirtyFrom, at);
  }

  /** Swaps the entry at `i` for one with the same path and stage (new stat data). */
  replace(i: number, entry: IndexEntry): void {
    this.#fresh[i] = encodeEntry(entry);
    this.#dirtyFrom = Math.min(this.#dirtyFrom, i);
  }

  /**
   * The index file (version 2, or 3 with extended flags); the entries' records then point into
   * it. Its memory is reused by the call after next, so write it out before then.
   */
  toBuffer(): Buffer {
    const n = this.#starts.length;
    const starts = this.#spareStarts;
    const ends = this.#spareEnds;
    starts.length = n;
    ends.length = n;
    // Records before `from` lie where the file last written here has them; without extended
    // flags there (the usual case), none of them has any.
    const from = this.#ownsBytes && !this.#header.extended ? Math.min(this.#dirtyFrom, n) : 0;
    for (let i = 0; i < from; i++) {
      starts[i] = this.#starts[i];
      ends[i] = this.#ends[i];
    }
    let at = from > 0 ? this.#ends[from - 1] : INDEX_HEADER_SIZE;
    let extended = false;
    // The first record that is new or moved: the file's bytes before it are as last written.
    let moved = -1;
    for (let i = from; i < n; i++) {
      starts[i] = at;
      const fresh = this.#fresh[i];
      if (moved < 0 && (fresh || this.#starts[i] !== at)) moved = i;
      at += fresh?.length ?? this.#ends[i] - this.#starts[i];
      ends[i] = at;
      extended ||= isExtendedRecord(fresh ?? this.#bytes, this.#at(i));
    }
    const size = at + INDEX_HASH_SIZE;
    const spare = this.#spare && this.#spare.byteLength >= size ? this.#spare : new ArrayBuffer(size + (size >> 4));
    const out = Buffer.from(spare, 0, size);
    // The records before `from` lie next to each other in #bytes, where they go in `out`.
    if (from > 0) this.#bytes.copy(out, INDEX_HEADER_SIZE, INDEX_HEADER_SIZE, this.#ends[from - 1]);
    for (let i = from; i < n;) {
      const fresh = this.#fresh[i];
      if (fresh) {
        fresh.copy(out, starts[i++]);
        continue;
      }
      let j = i + 1; // a run of records that lie next to each other in the old file too
      while (j < n && !this.#fresh[j] && this.#starts[j] === this.#ends[j - 1]) j++;
      this.#bytes.copy(out, starts[i], this.#starts[i], this.#ends[j - 1]);
      i = j;
    }
    writeIndexHeader(out, n, extended);
    const sameHeader = this.#ownsBytes && this.#header.count === n && this.#header.extended === extended;
    const unchanged = !sameHeader ? 0 : moved < 0 ? at : starts[moved];
    this.#sha.digest(out, at, unchanged).copy(out, at);
    this.#header = { count: n, extended };
    this.#dirtyFrom = n;
    this.#spare = this.#ownsBytes ? (this.#bytes.buffer as ArrayBuffer) : undefined;
    this.#ownsBytes = true;
    this.#bytes = out;
    this.#spareStarts = this.#starts;
    this.#spareEnds = this.#ends;
    this.#starts = starts;
    this.#ends = ends;
    this.#fresh.fill(undefined);
    return out;
  }
}
