import type { Bm25 } from './bm25.js';
import type { IndexedDocs } from './indexed-docs.js';
import { countOfSlot } from './pack-postings.js';
import { FIELD_COUNT } from './term-stats.js';

/** One query term and the index terms that may stand in for it (itself, completions, typo fixes). */
export interface Slot {
  /** `depth`: how many candidates the postings supply for the term, per field, without holdings. */
  alternatives: { id: number; term: string; weight: number; idf: number; depth: number }[];
}

/** Alternatives a query may have for holdings to be read (a mask has 32 bits). */
const BITS = 32;

/**
 * Scratch reused by every query (searches run one at a time, synchronously): fresh arrays
 * per query were garbage whose collections landed in the slowest queries. Pages get rows
 * in the order a query meets them; `meet[2·id + 1]` is a page's row when `meet[2·id]` is
 * the query's stamp (side by side, so a posting reads one cache line for both), so
 * nothing is cleared in bulk. Per row: the best bound of each slot (`best`, slots × rows), the bits
 * of the alternatives held (`held`) and the sum over fields of the alternative being read
 * (`current`); `touched` lists the rows that alternative met.
 */
let meet = new Uint32Array(0);
let best = new Float64Array(0);
let held = new Int32Array(0);
let current = new Float64Array(0);
let touched = new Int32Array(0);
/** Per row: 1 when some posting was in slot 0, whose count (and so the bound) is not exact. */
let loose = new Uint8Array(0);
/** The pages met, in row order; and the bounds handed out last. */
let rowPages = new Int32Array(0);
let bounded = new Float64Array(0);
let stamp = 0;

/**
 * What each page holds of a query's alternative terms, read off the postings alone: every
 * page holding any of them, which it holds, and per slot the best of its alternatives'
 * BM25 scores, each summed over fields from the count each posting slot stands for. That
 * is the exact score wherever the counts are below the last slot's, and an upper bound
 * elsewhere; so pages are ranked by it and only the few that can reach the top are scored
 * from their own term tables. An alternative's score is folded into its slot's best once
 * its fields are read, so a page costs a number per slot, not per alternative (a prefix
 * has up to nine): bounding the pages of a prefix query at 100k took 6 ms, now 1.4.
 * Alternatives are numbered in slot order; a query with more than 32 has no holdings (its
 * candidates are scored in full).
 */
export class Holdings {
  private constructor(
    private readonly width: number,
    /** Every page holding some alternative, in the order met (its row); valid until the next query. */
    readonly pages: Int32Array,
  ) {}

  static read(index: IndexedDocs, slots: Slot[], bm25: Bm25): Holdings | undefined {
    const alternatives = slots.reduce((n, s) => n + s.alternatives.length, 0);
    if (alternatives > BITS) return undefined;
    const size = index.docs.length;
    const width = slots.length;
    if (meet.length < 2 * size) meet = new Uint32Array(2 * Math.max(size, 1024));
    if (held.length < size) {
      const rows = Math.max(size, 1024);
      [held, current, touched, loose] = [new Int32Array(rows), new Float64Array(rows), new Int32Array(rows), new Uint8Array(rows)];
      [rowPages, bounded] = [new Int32Array(rows), new Float64Array(rows)];
    }
    if (best.length < size * width) best = new Float64Array(Math.max(size, 1024) * width);
    stamp += 1;
    if (stamp === 0xffffffff) {
      meet.fill(0);
      stamp = 1;
    }
    // Locals, not the module's bindings: the walk below runs per posting.
    const [seen, bests, holds, sums, met, inexact, now] = [meet, best, held, current, touched, loose, stamp];
    const pages = rowPages;
    let rows = 0;
    const lengths = index.lengths;
    let bit = 0;
    for (let s = 0; s < width; s++) {
      for (const alt of slots[s].alternatives) {
        const mask = 1 << bit++;
        let count = 0;
        // Fields in FIELDS order, as Bm25.score sums them: the same additions, the same bits.
        for (let f = 0; f < FIELD_COUNT; f++) {
          index.postings.each(alt.id, f, (id, slot) => {
            let row = seen[2 * id + 1];
            if (seen[2 * id] !== now) {
              seen[2 * id] = now;
              seen[2 * id + 1] = row = rows;
              pages[rows++] = id;
              for (let k = row * width; k < (row + 1) * width; k++) bests[k] = 0;
              holds[row] = 0;
              inexact[row] = 0;
            }
            if (slot === 0) inexact[row] = 1;
            const part = bm25.part(f, countOfSlot(slot), lengths[id * FIELD_COUNT + f]);
            if (holds[row] & mask) sums[row] += part;
            else {
              holds[row] |= mask;
              sums[row] = part;
              met[count++] = row;
            }
          });
        }
        // As scoreDoc weighs an alternative's score, and keeps its slot's best.
        for (let t = 0; t < count; t++) {
          const at = met[t] * width + s;
          bests[at] = Math.max(bests[at], alt.weight * (sums[met[t]] * alt.idf));
        }
      }
    }
    return new Holdings(width, pages.subarray(0, rows));
  }

  /** Bit i set: the page holds alternative i in some field. */
  mask(id: number): number {
    return held[meet[2 * id + 1]];
  }

  /** True when page `id`'s bound is its score: every count it was read from is exact. */
  exact(id: number): boolean {
    return loose[meet[2 * id + 1]] === 0;
  }

  /**
   * For each of `ids` (pages it holds), at least the score runSearch's scoreDoc gives the
   * page, computed the same way (so equal to it where the counts are exact). Valid until
   * the next query: like the rows, the array is reused.
   */
  bounds(ids: ArrayLike<number>): Float64Array {
    const { width } = this;
    const out = bounded.subarray(0, ids.length);
    for (let i = 0; i < ids.length; i++) {
      const row = meet[2 * ids[i] + 1] * width;
      let total = 0;
      let matched = 0;
      for (let k = row; k < row + width; k++) {
        if (best[k] > 0) matched += 1;
        total += best[k];
      }
      out[i] = (total * matched) / width;
    }
    return out;
  }
}
