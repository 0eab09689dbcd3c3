import {
  compareEntries,
  comparePaths,
  encodeEntry,
  frameIndex,
  INDEX_HASH_SIZE,
  INDEX_HEADER_SIZE,
  type IndexEntry,
} from './index-format.js';

/**
 * The entries of one index in git's order, each entry's bytes kept where they already are: a
 * span of the file last read or written, or a fresh record of a changed entry. Writing copies
 * the unchanged runs whole, so changing one path of a 10k-entry index costs a memcpy and a
 * SHA-1, not a re-encode of every entry.
 */
export class SortedIndex {
  readonly entries: IndexEntry[];
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

  private constructor(entries: IndexEntry[], bytes: Buffer, starts: number[], ends: number[], fresh: (Buffer | undefined)[]) {
    this.entries = entries;
    this.#bytes = bytes;
    this.#starts = starts;
    this.#ends = ends;
    this.#fresh = fresh;
  }

  /** From `parseIndex(bytes)`: records inside `bytes` (versions 2, 3) are reused, others (version 4) kept as fresh. */
  static fromFile(bytes: Buffer, entries: IndexEntry[], records: Buffer[]): SortedIndex {
    const inFile = (r: Buffer) => r.buffer === bytes.buffer && r.byteOffset >= bytes.byteOffset;
    const starts = records.map((r) => (inFile(r) ? r.byteOffset - bytes.byteOffset : -1));
    const ends = records.map((r, i) => (starts[i] < 0 ? -1 : starts[i] + r.length));
    return new SortedIndex(
      entries,
      bytes,
      starts,
      ends,
      records.map((r, i) => (starts[i] < 0 ? r : undefined)),
    );
  }

  /** From entries in any order; they must not repeat a (path, stage). */
  static fromEntries(entries: IndexEntry[]): SortedIndex {
    const sorted = [...entries].sort(compareEntries);
    return new SortedIndex(
      sorted,
      Buffer.alloc(0),
      sorted.map(() => -1),
      sorted.map(() => -1),
      sorted.map(encodeEntry),
    );
  }

  /** The first position whose path is not before `path`. */
  lowerBound(path: string): number {
    let lo = 0;
    let hi = this.entries.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (comparePaths(this.entries[mid].path, path) < 0) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** Removes the entries (every stage) whose path is `path`, or starts with it when `prefix`. */
  remove(path: string, prefix = false): void {
    const start = this.lowerBound(path);
    let end = start;
    while (end < this.entries.length && (prefix ? this.entries[end].path.startsWith(path) : this.entries[end].path === path)) end++;
    if (end === start) return;
    for (const list of [this.entries, this.#starts, this.#ends, this.#fresh]) list.splice(start, end - start);
  }

  /** Puts a stage-0 entry for a path the server wrote, replacing what stood there: the path, a folder of that name, a file named like a parent folder. */
  put(entry: IndexEntry): void {
    const path = entry.path;
    this.remove(path);
    this.remove(`${path}/`, true);
    for (let slash = path.indexOf('/'); slash >= 0; slash = path.indexOf('/', slash + 1)) this.remove(path.slice(0, slash));
    const at = this.lowerBound(path);
    this.entries.splice(at, 0, entry);
    this.#starts.splice(at, 0, -1);
    this.#ends.splice(at, 0, -1);
    this.#fresh.splice(at, 0, encodeEntry(entry));
  }

  /** Swaps the entry at `i` for one with the same path and stage (new stat data). */
  replace(i: number, entry: IndexEntry): void {
    this.entries[i] = entry;
    this.#fresh[i] = encodeEntry(entry);
  }

  /**
   * The index file (version 2, or 3 with extended flags); the entries' records then point into
   * it. Its memory is reused by the call after next, so write it out before then.
   */
  toBuffer(): Buffer {
    const n = this.entries.length;
    const starts = this.#spareStarts;
    const ends = this.#spareEnds;
    starts.length = n;
    ends.length = n;
    let at = INDEX_HEADER_SIZE;
    for (let i = 0; i < n; i++) {
      starts[i] = at;
      at += this.#fresh[i]?.length ?? this.#ends[i] - this.#starts[i];
      ends[i] = at;
    }
    const size = at + INDEX_HASH_SIZE;
    const spare = this.#spare && this.#spare.byteLength >= size ? this.#spare : new ArrayBuffer(size + (size >> 4));
    const out = Buffer.from(spare, 0, size);
    for (let i = 0; i < n;) {
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
    const extended = this.entries.some((e) => e.flags.skipWorktree || e.flags.intentToAdd);
    frameIndex(out, n, extended);
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
