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
 * Reused by every query (searches run one at a time, synchronously): fresh arrays per
 * query were garbage whose collections landed in the slowest queries. A page's row is
 * cleared when a query first meets it, so nothing is cleared in bulk.
 */
let parts = new Float64Array(0);
let stamps = new Uint32Array(0);
let stamp = 0;

/**
 * What each page holds of a query's alternative terms, read off the postings alone: every
 * page holding any of them, and per page and alternative the BM25 sum over fields before
 * idf, from the count each posting slot stands for. That is the exact score wherever the
 * counts are below the last slot's, and an upper bound elsewhere; so pages are ranked by it
 * and only the few that can reach the top are scored from their own term tables.
 * Alternatives are numbered in slot order; a query with more than 32 has no holdings (its
 * candidates are scored in full).
 */
export class Holdings {
  private constructor(
    private readonly slots: Slot[],
    private readonly width: number,
    /** Every page holding some alternative, in the order met. */
    readonly pages: number[],
  ) {}

  static read(index: IndexedDocs, slots: Slot[], bm25: Bm25): Holdings | undefined {
    const width = slots.reduce((n, s) => n + s.alternatives.length, 0);
    if (width > BITS) return undefined;
    const size = index.docs.length;
    if (parts.length < size * width) parts = new Float64Array(Math.max(size, 1024) * width);
    if (stamps.length < size) stamps = new Uint32Array(Math.max(size, 1024));
    stamp += 1;
    if (stamp === 0xffffffff) {
      stamps.fill(0);
      stamp = 1;
    }
    const pages: number[] = [];
    const lengths = index.lengths;
    let a = 0;
    for (const slot of slots) {
      for (const alt of slot.alternatives) {
        // Fields in FIELDS order, as Bm25.score sums them: the same additions, the same bits.
        for (let f = 0; f < FIELD_COUNT; f++) {
          index.postings.each(alt.id, f, (id, slot) => {
            if (stamps[id] !== stamp) {
              stamps[id] = stamp;
              for (let k = id * width, end = k + width; k < end; k++) parts[k] = 0;
              pages.push(id);
            }
            parts[id * width + a] += bm25.part(f, countOfSlot(slot), lengths[id * FIELD_COUNT + f]);
          });
        }
        a += 1;
      }
    }
    return new Holdings(slots, width, pages);
  }

  /** Bit i set: the page holds alternative i in some field. */
  mask(id: number): number {
    let mask = 0;
    for (let a = 0; a < this.width; a++) if (parts[id * this.width + a] > 0) mask |= 1 << a;
    return mask;
  }

  /**
   * For each of `ids`, at least the score runSearch's scoreDoc gives the page, computed
   * the same way (so equal to it where the counts are exact).
   */
  bounds(ids: ArrayLike<number>): Float64Array {
    const { slots, width } = this;
    const out = new Float64Array(ids.length);
    const weights = new Float64Array(width);
    const idfs = new Float64Array(width);
    const ends = new Int32Array(slots.length);
    let a = 0;
    slots.forEach((slot, i) => {
      for (const alt of slot.alternatives) {
        weights[a] = alt.weight;
        idfs[a++] = alt.idf;
      }
      ends[i] = a;
    });
    for (let i = 0; i < ids.length; i++) {
      const row = ids[i] * width;
      let total = 0;
      let matched = 0;
      let k = 0;
      for (let j = 0; j < ends.length; j++) {
        let best = 0;
        for (; k < ends[j]; k++) best = Math.max(best, weights[k] * (parts[row + k] * idfs[k]));
        if (best > 0) matched += 1;
        total += best;
      }
      out[i] = (total * matched) / ends.length;
    }
    return out;
  }
}
