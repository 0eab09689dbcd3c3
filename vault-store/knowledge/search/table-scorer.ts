import type { Bm25 } from './bm25.js';
import type { IndexedDoc } from './indexed-docs.js';
import type { Slot } from './score-bounds.js';
import { FIELD_COUNT, TermCursor } from './term-table.js';

/**
 * A page's score and the alternatives it holds, from its own term table read once: the
 * alternatives looked up in id order, as the table is sorted (a prefix query has up to
 * nine, and looking each up from the start of the table was a scan of it per
 * alternative). The same float operations as scoring each with `Bm25.score`, folded per
 * slot in alternative order: the same bits.
 */
export class TableScorer {
  /** Bits (as Holdings numbers alternatives) the page scored last holds. */
  held = 0;
  private readonly alternatives: Slot['alternatives'];
  /** Alternatives' bits by term id ascending. */
  private readonly byId: number[];
  private readonly values: Float64Array;
  private readonly cursor = new TermCursor();

  constructor(
    private readonly slots: Slot[],
    private readonly bm25: Bm25,
  ) {
    this.alternatives = slots.flatMap((s) => s.alternatives);
    this.byId = this.alternatives.map((_, bit) => bit).sort((a, b) => this.alternatives[a].id - this.alternatives[b].id);
    this.values = new Float64Array(this.alternatives.length);
  }

  score(doc: IndexedDoc): number {
    const { alternatives, values, cursor, bm25 } = this;
    const terms = doc.terms;
    cursor.open(terms);
    let held = 0;
    for (const bit of this.byId) {
      const alt = alternatives[bit];
      // The cursor stays on the last term it read: a term asked twice (in two slots) is there, and
      // after a miss it is on the first term past the one asked, which may be the next one asked.
      if (cursor.id < alt.id) cursor.reach(alt.id);
      if (cursor.id !== alt.id) {
        values[bit] = 0;
        continue;
      }
      let sum = 0;
      for (let f = 0; f < FIELD_COUNT; f++) {
        const tf = cursor.tf[f];
        if (tf !== 0) sum += bm25.part(f, tf, terms.lens[f]);
      }
      values[bit] = alt.weight * (sum * alt.idf);
      held |= 1 << bit;
    }
    this.held = held;
    let total = 0;
    let matched = 0;
    let bit = 0;
    for (const slot of this.slots) {
      let best = 0;
      for (let a = 0; a < slot.alternatives.length; a++) best = Math.max(best, values[bit++]);
      if (best > 0) matched += 1;
      total += best;
    }
    return (total * matched) / this.slots.length;
  }
}
