/** Which terms a scan wants (typo fixes): their length, and for an ASCII term read as bytes, `ascii`. */
export interface TermFilter {
  min: number;
  max: number;
  ascii?: (bytes: Uint8Array, start: number, end: number) => boolean;
}

/**
 * The terms of a saved vocabulary as the section holds them — UTF-8, NUL-separated, by id, and
 * their ids in sorted order — read in place: no string per term. Restoring them as strings
 * (split, copied, interned, the sorted list rebuilt) was most of reopening a 2k-page vault
 * after an eviction, and their garbage a good part of a busy server's GC; a query looks up a
 * few terms, by binary search over the saved order. Strings are compared as JavaScript
 * orders them (UTF-16 code units), the order the ids were saved in.
 */
export class SavedTerms {
  /** Where each term starts; term `id` ends one byte (its NUL) before `starts[id + 1]`. */
  private readonly starts: Uint32Array;

  /** Throws when `text` does not hold `order.length` terms or `order` is no order of them. */
  constructor(
    readonly text: Buffer,
    readonly order: Uint32Array,
  ) {
    const size = order.length;
    this.starts = new Uint32Array(size + 1);
    let id = 1;
    // indexOf (memchr) finds the NULs about twice as fast as a loop over the bytes.
    for (let at = text.indexOf(0); at >= 0; at = text.indexOf(0, at + 1)) {
      if (id >= size) throw new Error('bad vocabulary');
      this.starts[id++] = at + 1;
    }
    if (size === 0 ? text.length !== 0 : id !== size) throw new Error('bad vocabulary');
    this.starts[size] = text.length + 1;
    const seen = new Uint8Array(size);
    for (const at of order) if (at >= size || seen[at]++) throw new Error('bad vocabulary');
  }

  get size(): number {
    return this.order.length;
  }

  /** Bytes held: the section's terms and order, and where each term starts. */
  memoryBytes(): number {
    return this.text.byteLength + this.order.byteLength + this.starts.byteLength;
  }

  term(id: number): string {
    return this.text.toString('utf8', this.starts[id], this.starts[id + 1] - 1);
  }

  /**
   * False only when the term's bytes rule it out of `filter`, read without decoding it: a
   * character (UTF-16 unit) is one to three bytes of UTF-8, an ASCII one exactly one.
   */
  admits(id: number, filter: TermFilter): boolean {
    const start = this.starts[id];
    const end = this.starts[id + 1] - 1;
    const bytes = end - start;
    if (bytes < filter.min || bytes > 3 * filter.max) return false;
    for (let at = start; at < end; at++) if (this.text[at] >= 0x80) return true;
    return bytes <= filter.max && (filter.ascii?.(this.text, start, end) ?? true);
  }

  /** The id of `term`, or undefined: a binary search over the saved order. */
  id(term: string): number | undefined {
    const at = this.lowerBound(term);
    return at < this.size && this.compare(this.order[at], term) === 0 ? this.order[at] : undefined;
  }

  /** Position in the sorted order of the first term not below `term`. */
  lowerBound(term: string): number {
    let lo = 0;
    let hi = this.size;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.compare(this.order[mid], term) < 0) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** Term `id` against `other`, in string order: negative, zero or positive. */
  compare(id: number, other: string): number {
    const start = this.starts[id];
    const end = this.starts[id + 1] - 1;
    for (let at = start, j = 0; ; at++, j++) {
      if (at === end) return j === other.length ? 0 : -1;
      if (j === other.length) return 1;
      const byte = this.text[at];
      // Past ASCII, UTF-8 bytes and UTF-16 units part ways: the two strings decide (equal so far).
      if (byte >= 0x80) {
        const term = this.term(id);
        return term < other ? -1 : term > other ? 1 : 0;
      }
      const unit = other.charCodeAt(j);
      if (byte !== unit) return byte - unit;
    }
  }

  /** True when term `id` is `source.slice(start, end)`, compared in place. */
  equals(id: number, source: string, start: number, end: number): boolean {
    const from = this.starts[id];
    const bytes = this.starts[id + 1] - 1 - from;
    const length = end - start;
    // A character takes at least one byte: fewer bytes than characters is another term.
    if (bytes < length) return false;
    if (bytes === length) {
      let i = 0;
      while (i < length && this.text[from + i] < 0x80 && this.text[from + i] === source.charCodeAt(start + i)) i++;
      if (i === length) return true;
      if (this.text[from + i] < 0x80) return false;
    }
    return this.term(id) === source.slice(start, end);
  }

  /** FNV-1a over the term's UTF-16 units, as `hashOf` gives it for the same string. */
  hash(id: number): number {
    const end = this.starts[id + 1] - 1;
    let h = 0x811c9dc5 | 0;
    for (let at = this.starts[id]; at < end; at++) {
      const byte = this.text[at];
      if (byte >= 0x80) {
        const term = this.term(id);
        return hashOf(term, 0, term.length);
      }
      h = Math.imul(h ^ byte, 0x01000193);
    }
    return h;
  }
}

/** FNV-1a over UTF-16 code units. */
export function hashOf(source: string, start: number, end: number): number {
  let h = 0x811c9dc5 | 0;
  for (let i = start; i < end; i++) h = Math.imul(h ^ source.charCodeAt(i), 0x01000193);
  return h;
}
