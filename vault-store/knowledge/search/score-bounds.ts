import type { Bm25 } from './bm25.js';
import type { IndexedDocs } from './indexed-docs.js';
import { PostingReader } from './posting-reader.js';
import { FIELD_COUNT } from './term-stats.js';

/** One query term and the index terms that may stand in for it (itself, completions, typo fixes). */
export interface Slot {
  /** `depth`: how many candidates the postings supply for the term, per field, without holdings. */
  alternatives: { id: number; term: string; weight: number; idf: number; depth: number }[];
}

/** Alternatives a query may have for holdings to be read (a mask has 32 bits). */
const BITS = 32;
const ALL_FIELDS = (1 << FIELD_COUNT) - 1;

/**
 * Scratch reused by every query (searches run one at a time, synchronously): fresh arrays
 * per query were garbage whose collections landed in the slowest queries. Pages get rows
 * in the order a query meets them; `meet[2·id + 1]` is a page's row when `meet[2·id]` is
 * the query's stamp (side by side, so a posting reads one cache line for both), so
 * nothing is cleared in bulk. Per row: the best score of each slot (`best`, slots × rows), the bits
 * of the alternatives held (`held`) and the sum over fields of the alternative being read
 * (`current`); `touched` lists the rows that alternative met.
 */
let meet = new Uint32Array(0);
let best = new Float64Array(0);
let held = new Int32Array(0);
let current = new Float64Array(0);
let touched = new Int32Array(0);
/** Per row, the last alternative `fillIn` summed it for (a count over all queries, so never cleared). */
let marks = new Uint32Array(0);
let pass = 0;
/** The pages met, in row order; and the scores handed out last. */
let rowPages = new Int32Array(0);
let scored = new Float64Array(0);
let stamp = 0;
const reader = new PostingReader();

/**
 * What each page holds of a query's alternative terms, read off the postings alone: every
 * page holding any of them, which it holds, and per slot the best of its alternatives'
 * BM25 scores, each summed over fields from the counts the postings give: the page's
 * exact score, to the bit, with no term table read. An alternative's score is folded into
 * its slot's best once its fields are read, so a page costs a number per slot, not per
 * alternative (a prefix has up to nine): scoring the pages of a prefix query at 100k took
 * 6 ms, then 1.4. Alternatives are numbered in slot order; a query with more than 32 has no
 * holdings (its candidates are scored in full).
 */
export class Holdings {
  private constructor(
    private readonly width: number,
    /** Every page holding some alternative, in the order met (its row); valid until the next query. */
    readonly pages: Int32Array,
    /** Per slot, the most its alternatives can score through lists read late (0: none was). */
    private readonly unread: Float64Array,
    /** As given to `read`, when it left some list unread. */
    private readonly late: ArrayLike<number> | undefined,
  ) {}

  /** Whether `fillIn` read the lists left unread. */
  private filled = false;

  /**
   * `late`: per alternative (in bit order), fields (bit f) whose lists only fill in the pages
   * the other lists met: a page met through none of those is not met at all, and scores at
   * most `ceiling()`; every page met is as a full read leaves it. A late list costs a
   * decode per posting, not a row: typing "ear" offers the word itself, in 99% of a
   * generated vault's pages (with a tiny idf), beside completions found in a few titles.
   * With `unreadLate`, late lists are not read at all (see `partial`).
   */
  static read(index: IndexedDocs, slots: Slot[], bm25: Bm25, late?: ArrayLike<number>, unreadLate = false): Holdings | undefined {
    const alternatives = slots.reduce((n, s) => n + s.alternatives.length, 0);
    if (alternatives > BITS) return undefined;
    const size = index.docs.length;
    const width = slots.length;
    if (meet.length < 2 * size) meet = new Uint32Array(2 * Math.max(size, 1024));
    if (held.length < size) {
      const rows = Math.max(size, 1024);
      [held, current, touched, marks] = [new Int32Array(rows), new Float64Array(rows), new Int32Array(rows), new Uint32Array(rows)];
      [rowPages, scored] = [new Int32Array(rows), new Float64Array(rows)];
    }
    if (best.length < size * width) best = new Float64Array(Math.max(size, 1024) * width);
    stamp += 1;
    if (stamp === 0xffffffff) {
      meet.fill(0);
      stamp = 1;
    }
    // Locals, not the module's bindings: the walk below runs per posting.
    const [seen, bests, holds, sums, met, now] = [meet, best, held, current, touched, stamp];
    const pages = rowPages;
    let rows = 0;
    const rowOf = (id: number): number => {
      if (seen[2 * id] === now) return seen[2 * id + 1];
      const row = rows++;
      seen[2 * id] = now;
      seen[2 * id + 1] = row;
      pages[row] = id;
      for (let k = row * width; k < (row + 1) * width; k++) bests[k] = 0;
      holds[row] = 0;
      return row;
    };
    const unread = new Float64Array(width);
    // Alternatives read in full first, then those with late lists: by then every page is met.
    const order = slots.flatMap((slot, s) => slot.alternatives.map((alt) => ({ alt, s, bit: 0, fields: 0 })));
    order.forEach((entry, bit) => Object.assign(entry, { bit, fields: late?.[bit] ?? 0 }));
    order.sort((a, b) => (a.fields ? 1 : 0) - (b.fields ? 1 : 0) || a.bit - b.bit);
    for (const { alt, fields } of order) {
      if (fields === 0 || fields === ALL_FIELDS || unreadLate) continue;
      for (let f = 0; f < FIELD_COUNT; f++) {
        if (fields & (1 << f)) continue;
        for (const list = index.postings.read(alt.id, f, reader); list.next();) rowOf(list.id);
      }
    }
    const lengths = index.lengths;
    for (const { alt, s, bit, fields } of order) {
      const mask = 1 << bit;
      if (fields) unread[s] = Math.max(unread[s], alt.weight * (saturated(index, alt.id, bm25, fields) * alt.idf));
      let count = 0;
      // Fields in FIELDS order, as Bm25.score sums them: the same additions, the same bits.
      for (let f = 0; f < FIELD_COUNT; f++) {
        const late = (fields & (1 << f)) !== 0;
        if (late && unreadLate) continue;
        for (const list = index.postings.read(alt.id, f, reader); list.next();) {
          const id = list.id;
          let row: number;
          if (seen[2 * id] === now) row = seen[2 * id + 1];
          else if (late) {
            // A late list fills in the pages met; the others it would meet score at most `ceiling()`.
            continue;
          } else {
            // rowOf, inlined: this loop runs per posting.
            row = rows++;
            seen[2 * id] = now;
            seen[2 * id + 1] = row;
            pages[row] = id;
            for (let k = row * width; k < row * width + width; k++) bests[k] = 0;
            holds[row] = 0;
          }
          const part = bm25.part(f, list.count, lengths[id * FIELD_COUNT + f]);
          if (holds[row] & mask) sums[row] += part;
          else {
            holds[row] |= mask;
            sums[row] = part;
            met[count++] = row;
          }
        }
      }
      // As scoreDoc weighs an alternative's score, and keeps its slot's best.
      for (let t = 0; t < count; t++) {
        const at = met[t] * width + s;
        bests[at] = Math.max(bests[at], alt.weight * (sums[met[t]] * alt.idf));
      }
    }
    return new Holdings(width, pages.subarray(0, rows), unread, unreadLate && unread.some((value) => value > 0) ? late : undefined);
  }

  /** Bit i set: the page holds alternative i in some field. */
  mask(id: number): number {
    return held[meet[2 * id + 1]];
  }

  /** The most a page the read did not meet can score: it holds the query's terms only where lists were read late. */
  ceiling(): number {
    let total = 0;
    let matched = 0;
    for (const value of this.unread) {
      if (value > 0) matched += 1;
      total += value;
    }
    return (total * matched) / this.width;
  }

  /** Whether lists were left unread (`unreadLate`) and not yet filled in: `scores` gives upper bounds, `mask` too little. */
  get partial(): boolean {
    return !this.filled && this.late !== undefined;
  }

  /**
   * Reads the lists `read` left unread (`late`) for the pages it met only,
   * each such alternative again whole, its fields in order (the same additions as a full
   * read): every page met then has its exact score (`scores`) and mask, as if nothing had
   * been read late. A decode per posting, no row.
   */
  fillIn(index: IndexedDocs, slots: Slot[], bm25: Bm25): void {
    const { width, late } = this;
    if (!late) return;
    const [seen, bests, holds, sums, met, now, marked] = [meet, best, held, current, touched, stamp, marks];
    const lengths = index.lengths;
    let bit = 0;
    slots.forEach((slot, s) => {
      for (const alt of slot.alternatives) {
        const mask = 1 << bit;
        if (!late[bit++]) continue;
        if (++pass === 0xffffffff) {
          marked.fill(0);
          pass = 1;
        }
        let count = 0;
        for (let f = 0; f < FIELD_COUNT; f++) {
          for (const list = index.postings.read(alt.id, f, reader); list.next();) {
            const id = list.id;
            if (seen[2 * id] !== now) continue;
            const row = seen[2 * id + 1];
            const part = bm25.part(f, list.count, lengths[id * FIELD_COUNT + f]);
            if (marked[row] === pass) sums[row] += part;
            else {
              marked[row] = pass;
              sums[row] = part;
              met[count++] = row;
            }
          }
        }
        for (let t = 0; t < count; t++) {
          holds[met[t]] |= mask;
          const at = met[t] * width + s;
          bests[at] = Math.max(bests[at], alt.weight * (sums[met[t]] * alt.idf));
        }
      }
    });
    this.filled = true;
  }

  /**
   * For each of `ids` (pages it met), the score scoreDoc gives the page, by the same float
   * operations; while lists are left unread, a bound on
   * it: each slot's best as read plus the most its unread lists can add (with a margin for
   * rounding, far below BM25's own between a count and saturation). Valid until the next
   * query: like the rows, the array is reused.
   */
  scores(ids: ArrayLike<number>): Float64Array {
    const { width } = this;
    const unread = this.partial ? this.unread : NONE;
    const out = scored.subarray(0, ids.length);
    for (let i = 0; i < ids.length; i++) {
      const row = meet[2 * ids[i] + 1] * width;
      let total = 0;
      let matched = 0;
      for (let k = row; k < row + width; k++) {
        const value = unread[k - row] > 0 ? (best[k] + unread[k - row]) * UP : best[k];
        if (value > 0) matched += 1;
        total += value;
      }
      out[i] = (total * matched) / width;
    }
    return out;
  }
}

/** Rounding margin of a bound that adds what unread lists may give (see `scores`). */
const UP = 1 + 1e-9;
const NONE = new Float64Array(BITS);

/** The most term `term` adds through `fields` (bit f) to a page's sum before idf: each field it is in at the saturated count. */
export function saturated(index: IndexedDocs, term: number, bm25: Bm25, fields: number): number {
  let sum = 0;
  for (let f = 0; f < FIELD_COUNT; f++) if (fields & (1 << f) && index.postings.holds(term, f)) sum += bm25.part(f, Infinity, 0);
  return sum;
}
