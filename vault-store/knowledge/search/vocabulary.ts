import { own } from '../own-string.js';

/**
 * Term ↔ id table that looks terms up by a slice of a larger string. Building the index
 * meets five million tokens on 10k pages; slicing each into a fresh string for a `Map`
 * (which must hash it anew) was the costliest part of counting them. Here a token is
 * hashed from the text's char codes in place, and a string is made only for a new term.
 * Open addressing, linear probing, kept at most half full; ids are dense and never reused.
 */
export class Vocabulary {
  readonly terms: string[] = [];
  private hashes = new Int32Array(1024);
  /** id + 1 per slot; 0 = empty. */
  private table = new Int32Array(2048);

  get size(): number {
    return this.terms.length;
  }

  /** Approximate bytes held: each term's string (a header and two bytes a character, at most) and the tables. */
  memoryBytes(): number {
    let chars = 0;
    for (const term of this.terms) chars += term.length;
    return this.terms.length * (8 + 20) + 2 * chars + this.hashes.byteLength + this.table.byteLength;
  }

  /** Id of `term`, or undefined. */
  id(term: string): number | undefined {
    const found = this.find(term, 0, term.length, hash(term, 0, term.length));
    return found < 0 ? undefined : found;
  }

  /** Id of the term `source.slice(start, end)`, added when new. */
  intern(source: string, start: number, end: number): number {
    const h = hash(source, start, end);
    const found = this.find(source, start, end, h);
    if (found >= 0) return found;
    const id = this.terms.length;
    // Owned: a slice would pin the page text it came from for the life of the index (4.6 MB at 10k pages).
    this.terms.push(own(start === 0 && end === source.length ? source : source.slice(start, end)));
    if (id >= this.hashes.length) this.hashes = grown(this.hashes);
    this.hashes[id] = h;
    this.table[~found] = id + 1;
    if (2 * this.terms.length > this.table.length) this.rehash();
    return id;
  }

  /** The id, or the one's complement of the empty slot where the term belongs. */
  private find(source: string, start: number, end: number, h: number): number {
    const { table, terms, hashes } = this;
    const mask = table.length - 1;
    const length = end - start;
    for (let at = h & mask; ; at = (at + 1) & mask) {
      const entry = table[at];
      if (entry === 0) return ~at;
      const id = entry - 1;
      if (hashes[id] === h && terms[id].length === length && sameChars(terms[id], source, start)) return id;
    }
  }

  private rehash(): void {
    const table = new Int32Array(this.table.length * 2);
    const mask = table.length - 1;
    for (let id = 0; id < this.terms.length; id++) {
      let at = this.hashes[id] & mask;
      while (table[at] !== 0) at = (at + 1) & mask;
      table[at] = id + 1;
    }
    this.table = table;
  }
}

/** FNV-1a over UTF-16 code units. */
function hash(source: string, start: number, end: number): number {
  let h = 0x811c9dc5 | 0;
  for (let i = start; i < end; i++) h = Math.imul(h ^ source.charCodeAt(i), 0x01000193);
  return h;
}

function sameChars(term: string, source: string, start: number): boolean {
  for (let i = 0; i < term.length; i++) if (term.charCodeAt(i) !== source.charCodeAt(start + i)) return false;
  return true;
}

function grown(array: Int32Array): Int32Array<ArrayBuffer> {
  const next = new Int32Array(array.length * 2);
  next.set(array);
  return next;
}
