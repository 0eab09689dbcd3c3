import type { SearchIndex } from './search-index.js';
import { FIELD_BOUND, FIELD_COUNT, FIELDS } from './term-stats.js';

/** One query term and the index terms that may stand in for it (itself, completions, typo fixes). */
export interface Slot {
  /** `depth`: how many candidates FlexSearch supplies for the term, per field. */
  alternatives: { id: number; term: string; weight: number; idf: number; depth: number }[];
}

/** Bits of the 32 alternatives a mask can tell about. */
const BITS = 32;

/**
 * Reused by every query (searches run one at a time, synchronously): fresh arrays cost
 * 40 KB per field per query on 10k pages, and the garbage collections they caused landed
 * in the slowest queries.
 */
let scratch: Int32Array[] = [];

function cleared(size: number): Int32Array[] {
  if (scratch.length === 0 || scratch[0].length < size) scratch = FIELDS.map(() => new Int32Array(Math.max(size, 1024)));
  for (const held of scratch) held.fill(0, 0, size);
  return scratch;
}

/**
 * Which of a query's alternative terms each page holds, and in which fields, read off
 * the postings (dense arrays: no page's own tables are touched). Gives each candidate an
 * upper bound of its score, so only the few that can reach the top get scored, and tells
 * the scorer which terms to look up. Alternatives are numbered in slot order; for a
 * query with more than 32 there are no holdings (every candidate is scored in full).
 */
export class Holdings {
  private constructor(
    private readonly slots: Slot[],
    private readonly fields: Int32Array[],
  ) {}

  static read(index: SearchIndex, slots: Slot[]): Holdings | undefined {
    if (slots.reduce((n, s) => n + s.alternatives.length, 0) > BITS) return undefined;
    const fields = cleared(index.docs.length);
    let bit = 0;
    for (const slot of slots) {
      for (const alt of slot.alternatives) {
        const flag = 1 << bit++;
        for (let f = 0; f < FIELD_COUNT; f++) {
          const postings = index.flex.postings(alt.term, FIELDS[f]);
          if (!postings) return undefined;
          const held = fields[f];
          for (const ids of postings) if (ids) for (const id of ids) held[id] |= flag;
        }
      }
    }
    return new Holdings(slots, fields);
  }

  /** Bit i set: the page holds alternative i in some field. */
  mask(id: number): number {
    const [a, b, c, d] = this.fields;
    return a[id] | b[id] | c[id] | d[id];
  }

  /** At least the score runSearch's scoreDoc gives the page: every held term at full saturation. */
  bound(id: number): number {
    let total = 0;
    let matched = 0;
    let bit = 0;
    for (const slot of this.slots) {
      let best = 0;
      for (const alt of slot.alternatives) {
        const flag = 1 << bit++;
        let sum = 0;
        for (let f = 0; f < FIELD_COUNT; f++) if (this.fields[f][id] & flag) sum += FIELD_BOUND[f];
        best = Math.max(best, alt.weight * alt.idf * sum);
      }
      if (best > 0) matched += 1;
      total += best;
    }
    return (total * matched) / this.slots.length;
  }
}
