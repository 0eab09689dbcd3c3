import { lowerBound } from '../../sorted.js';
import { own } from '../own-string.js';
import { hashOf, SavedTerms, type TermFilter } from './saved-terms.js';

/**
 * Term ↔ id table that looks terms up by a slice of a larger string. Building the index
 * meets five million tokens on 10k pages; slicing each into a fresh string for a `Map`
 * (which must hash it anew) was the costliest part of counting them. Here a token is
 * hashed from the text's char codes in place, and a string is made only for a new term.
 * Open addressing, linear probing, kept at most half full; ids are dense and never reused.
 *
 * A restored vocabulary keeps its saved terms as the section's bytes (`SavedTerms`, ids
 * below `saved.size`); they join the hash table only when the first page is filed (an edit):
 * until then a lookup is a binary search over their saved order. Terms added since are
 * strings, and so is every term of one built from scratch.
 */
export class Vocabulary {
  private readonly saved: SavedTerms | undefined;
  private readonly savedSize: number;
  /** Terms added to the saved ones (all terms of a built vocabulary): id `savedSize + i`. */
  private readonly added: string[] = [];
  /** The added terms in sorted order, and those added since it was last read (merged lazily, so a build sorts once). */
  private sortedAdded: string[] = [];
  private unsorted: string[] = [];
  /** Whether the saved terms are in the hash table yet. */
  private savedHashed: boolean;
  /** Each hashed term's hash, by id (a restored vocabulary's saved terms get theirs in `hashSaved`). */
  private hashes = new Int32Array(1024);
  /** id + 1 per slot; 0 = empty. */
  private table = new Int32Array(2048);

  constructor(saved?: SavedTerms) {
    this.saved = saved;
    this.savedSize = saved?.size ?? 0;
    this.savedHashed = this.savedSize === 0;
  }

  get size(): number {
    return this.savedSize + this.added.length;
  }

  /** Approximate bytes held: the saved terms' bytes, each added term's string (a header and two bytes a character, at most) and the tables. */
  memoryBytes(): number {
    let chars = 0;
    for (const term of this.added) chars += term.length;
    const sorted = 8 * (this.sortedAdded.length + this.unsorted.length);
    return (
      (this.saved?.memoryBytes() ?? 0) + this.added.length * (8 + 20) + 2 * chars + sorted + this.hashes.byteLength + this.table.byteLength
    );
  }

  term(id: number): string {
    return id < this.savedSize ? this.saved!.term(id) : this.added[id - this.savedSize];
  }

  /** Id of `term`, or undefined. */
  id(term: string): number | undefined {
    if (!this.savedHashed) {
      // Nothing was added yet (an add hashes the saved terms first): the saved order has it or nothing does.
      return this.saved!.id(term);
    }
    const found = this.find(term, 0, term.length, hashOf(term, 0, term.length));
    return found < 0 ? undefined : found;
  }

  /** Id of the term `source.slice(start, end)`, added when new. */
  intern(source: string, start: number, end: number): number {
    if (!this.savedHashed) this.hashSaved();
    const h = hashOf(source, start, end);
    const found = this.find(source, start, end, h);
    if (found >= 0) return found;
    const id = this.size;
    // Owned: a slice would pin the page text it came from for the life of the index (4.6 MB at 10k pages).
    const term = own(start === 0 && end === source.length ? source : source.slice(start, end));
    this.added.push(term);
    this.unsorted.push(term);
    if (id >= this.hashes.length) this.hashes = grown(this.hashes, 2 * this.hashes.length);
    this.hashes[id] = h;
    this.table[~found] = id + 1;
    if (2 * this.size > this.table.length) this.rehash();
    return id;
  }

  /**
   * Terms in sorted order from the first not below `from`; with `filter`, only terms of its
   * lengths, and saved ones it may admit (see SavedTerms.admits): the rest are not decoded.
   */
  *sorted(from = '', filter?: TermFilter): Generator<string> {
    const added = this.addedInOrder();
    const saved = this.saved;
    const order = saved?.order;
    let a = lowerBound(added, from);
    let s = saved ? saved.lowerBound(from) : 0;
    let savedTerm: string | undefined;
    for (;;) {
      while (savedTerm === undefined && order && s < order.length) {
        const id = order[s++];
        if (!filter || saved.admits(id, filter)) savedTerm = saved.term(id);
      }
      while (a < added.length && filter && (added[a].length < filter.min || added[a].length > filter.max)) a++;
      const next = a < added.length ? added[a] : undefined;
      if (savedTerm === undefined && next === undefined) return;
      if (next === undefined || (savedTerm !== undefined && savedTerm < next)) {
        yield savedTerm!;
        savedTerm = undefined;
      } else {
        yield next;
        a++;
      }
    }
  }

  /**
   * The first `size` terms for the persisted index: their ids in sorted order, and their text
   * by id, NUL-separated (no term holds one). The saved terms' bytes go as they were read.
   */
  savedForm(size: number): { order: Uint32Array; text: Uint8Array[] } {
    const order = new Uint32Array(size);
    let at = 0;
    let s = 0;
    const savedOrder = this.saved?.order ?? new Uint32Array(0);
    for (const term of this.addedInOrder()) {
      const id = this.id(term)!;
      if (id >= size) continue;
      // The saved terms below this one go first (a term is never both saved and added).
      const until = this.saved ? this.saved.lowerBound(term) : 0;
      while (s < until) order[at++] = savedOrder[s++];
      order[at++] = id;
    }
    while (s < savedOrder.length) order[at++] = savedOrder[s++];
    const text: Uint8Array[] = this.savedSize > 0 ? [this.saved!.text] : [];
    if (size > this.savedSize) {
      const newer = this.added.slice(0, size - this.savedSize).join('\0');
      text.push(Buffer.from(this.savedSize > 0 ? `\0${newer}` : newer));
    }
    return { order, text };
  }

  private addedInOrder(): readonly string[] {
    if (this.unsorted.length > 64) this.sortedAdded = this.sortedAdded.concat(this.unsorted).sort();
    else for (const term of this.unsorted) this.sortedAdded.splice(lowerBound(this.sortedAdded, term), 0, term);
    this.unsorted = [];
    return this.sortedAdded;
  }

  /** Puts the saved terms in the hash table, for filing a page (its tokens are looked up in place). */
  private hashSaved(): void {
    this.savedHashed = true;
    // Before any term is added (an add hashes the saved terms first): the saved ones are all there is.
    this.hashes = new Int32Array(this.savedSize + 1024);
    for (let id = 0; id < this.savedSize; id++) this.hashes[id] = this.saved!.hash(id);
    this.rehash();
  }

  /** The id, or the one's complement of the empty slot where the term belongs. */
  private find(source: string, start: number, end: number, h: number): number {
    const { table, hashes } = this;
    const mask = table.length - 1;
    for (let at = h & mask; ; at = (at + 1) & mask) {
      const entry = table[at];
      if (entry === 0) return ~at;
      const id = entry - 1;
      if (hashes[id] === h && this.equals(id, source, start, end)) return id;
    }
  }

  private equals(id: number, source: string, start: number, end: number): boolean {
    if (id < this.savedSize) return this.saved!.equals(id, source, start, end);
    const term = this.added[id - this.savedSize];
    return term.length === end - start && sameChars(term, source, start);
  }

  /** A table at most half full of every hashed id. */
  private rehash(): void {
    let length = this.table.length;
    while (2 * this.size > length) length *= 2;
    const table = new Int32Array(length);
    const mask = length - 1;
    for (let id = this.savedHashed ? 0 : this.savedSize; id < this.size; id++) {
      let at = this.hashes[id] & mask;
      while (table[at] !== 0) at = (at + 1) & mask;
      table[at] = id + 1;
    }
    this.table = table;
  }
}

function sameChars(term: string, source: string, start: number): boolean {
  for (let i = 0; i < term.length; i++) if (term.charCodeAt(i) !== source.charCodeAt(start + i)) return false;
  return true;
}

function grown(array: Int32Array, size: number): Int32Array<ArrayBuffer> {
  const next = new Int32Array(size);
  next.set(array);
  return next;
}
