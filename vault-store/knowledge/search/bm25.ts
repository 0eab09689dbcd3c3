import type { TermStats } from './term-stats.js';
import { FIELD_COUNT, TermCursor, type DocTerms } from './term-table.js';

// Title beats body: a one-word title hit must outweigh a body that repeats the word.
const FIELD_WEIGHT = [3, 1, 2, 0.75];
const FIELD_B = [0.5, 0.75, 0.5, 0.5];
const K1 = 1.2;

/**
 * BM25F-style scoring over our own term statistics. The field averages are read once per
 * scorer: a query scores many pages against the same statistics. `part` is the one
 * formula: the exact score and the upper bounds read off the postings both go through
 * it, so where a bound knows the exact counts it equals the score to the last bit.
 */
export class Bm25 {
  private readonly avg: number[];
  private readonly cursor = new TermCursor();

  constructor(stats: TermStats) {
    this.avg = stats.averageLengths();
  }

  /**
   * What `tf` occurrences of a term in field `f`, `len` terms long, add before idf.
   * `tf = Infinity`: the most any count can add. BM25's saturation tf·(K1+1)/(tf+K1·norm)
   * stays below K1+1, as norm ≥ 1 − b > 0 (by a relative margin of 1e-6 or more at the
   * highest count kept, far above rounding error).
   */
  part(f: number, tf: number, len: number): number {
    return partAt(f, tf, len, this.avg[f]);
  }

  /**
   * The most a posting can add now that added `part` when field `f` averaged `average`
   * terms (its run's bound as packed, see pack-postings.ts). With r = now / then, the
   * length's share of norm is divided by r, so norm ≥ norm_then / max(1, r), and the part
   * grows by at most max(1, r); the count and length need not be known.
   */
  since(f: number, part: number, average: number): number {
    return part * Math.max(1, this.avg[f] / average);
  }
  /** Score of term `id` (whose idf is `idf`) in a page; 0 when the page lacks it. */
  score(doc: DocTerms, id: number, idf: number): number {
    const { cursor } = this;
    if (!cursor.open(doc).find(id)) return 0;
    let sum = 0;
    for (let f = 0; f < FIELD_COUNT; f++) {
      const tf = cursor.tf[f];
      if (tf !== 0) sum += this.part(f, tf, doc.lens[f]);
    }
    return sum * idf;
  }
}

/** `Bm25.part` at a given field average: packing bounds runs with it (see pack-postings.ts). */
export function partAt(f: number, tf: number, len: number, average: number): number {
  if (tf === Infinity) return FIELD_WEIGHT[f] * (K1 + 1);
  const norm = 1 - FIELD_B[f] + FIELD_B[f] * (len / average);
  return (FIELD_WEIGHT[f] * (tf * (K1 + 1))) / (tf + K1 * norm);
}

/** Field-weighted frequency of the term a cursor is at (for similarity). */
export function weightedTf(tf: Uint32Array): number {
  let sum = 0;
  for (let f = 0; f < FIELD_COUNT; f++) sum += FIELD_WEIGHT[f] * tf[f];
  return sum;
}
