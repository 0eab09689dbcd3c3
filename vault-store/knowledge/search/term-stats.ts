import { lowerBound } from '../../sorted.js';

/**
 * BM25 term statistics, kept exact under every add and remove so ranking never drifts
 * from what a rebuild would give. Terms get numeric ids from a vocabulary that only grows
 * (a rebuild compacts it); each document keeps its distinct term ids sorted, with
 * per-field frequencies, in typed arrays: 10k pages cost a few tens of MB, not hundreds.
 */

export const FIELDS = ['title', 'body', 'tags', 'path'] as const;
export type Field = (typeof FIELDS)[number];
export const FIELD_COUNT = FIELDS.length;

/** Field tokens of one page, as the tokenizer gave them. */
export type FieldTokens = Record<Field, string[]>;

/**
 * A document's terms: ids ascending; tf holds FIELD_COUNT counts per term, in FIELDS order.
 * Counts take one byte (they are almost all small: half the table's memory went to zeros
 * in 16-bit cells); a count of TF_MORE or above is TF_MORE there, its value in `more`.
 */
export interface DocTerms {
  ids: Uint32Array;
  tf: Uint8Array;
  lens: number[];
  more?: Map<number, number>;
}

export const TF_MORE = 0xff;
const TF_MAX = 0xffff;

/** The count at position `k` of a document's tf table. */
export function tfAt(doc: DocTerms, k: number): number {
  const tf = doc.tf[k];
  return tf < TF_MORE ? tf : doc.more!.get(k)!;
}

// Title beats body: a one-word title hit must outweigh a body that repeats the word.
const FIELD_WEIGHT = [3, 1, 2, 0.75];
const FIELD_B = [0.5, 0.75, 0.5, 0.5];
const K1 = 1.2;

export class TermStats {
  private readonly ids = new Map<string, number>();
  private terms: string[] = [];
  /** Documents holding each term, by term id. */
  private df = new Uint32Array(1024);
  /** Every term ever seen, sorted; for prefix expansion and typo suggestions. */
  private sortedTerms: string[] = [];
  /** Terms added since `sorted` was last read: merged lazily, so a build sorts once. */
  private unsorted: string[] = [];
  private readonly totalLen = new Array<number>(FIELD_COUNT).fill(0);
  docCount = 0;

  term(id: number): string {
    return this.terms[id];
  }

  id(term: string): number | undefined {
    return this.ids.get(term);
  }

  docFreq(term: string): number {
    const id = this.ids.get(term);
    return id === undefined ? 0 : this.df[id];
  }

  idf(id: number): number {
    const df = this.df[id];
    return Math.log(1 + (this.docCount - df + 0.5) / (df + 0.5));
  }

  /**
   * Counts a new document's tokens into the statistics. Returns its term table and each
   * field's distinct terms in first-occurrence order (what the candidate index wants),
   * hashing every token once: on a 10k-page build this loop is one of the costliest.
   */
  add(fields: FieldTokens): { terms: DocTerms; distinct: FieldTokens } {
    const counts = new Map<string, { id: number; row: Uint32Array }>();
    const distinct = {} as FieldTokens;
    const lens = FIELDS.map((field, f) => {
      const seen: string[] = (distinct[field] = []);
      for (const token of fields[field]) {
        let entry = counts.get(token);
        if (!entry) counts.set(token, (entry = { id: this.intern(token), row: new Uint32Array(FIELD_COUNT) }));
        // The vocabulary's own string: FlexSearch then hashes the same string objects every time.
        if (entry.row[f] === 0) seen.push(this.terms[entry.id]);
        if (entry.row[f] < TF_MAX) entry.row[f] += 1;
      }
      return fields[field].length;
    });
    const rows = new Map<number, Uint32Array>();
    for (const { id, row } of counts.values()) rows.set(id, row);
    const ids = Uint32Array.from(rows.keys()).sort();
    const tf = new Uint8Array(ids.length * FIELD_COUNT);
    const terms: DocTerms = { ids, tf, lens };
    ids.forEach((id, i) => {
      rows.get(id)!.forEach((count, f) => {
        const k = i * FIELD_COUNT + f;
        tf[k] = Math.min(count, TF_MORE);
        if (count >= TF_MORE) (terms.more ??= new Map()).set(k, count);
      });
    });
    this.count(terms, 1);
    return { terms, distinct };
  }

  remove(doc: DocTerms): void {
    this.count(doc, -1);
  }

  /** Re-registers a document loaded from disk (its ids are this vocabulary's). */
  restore(doc: DocTerms): void {
    this.count(doc, 1);
  }

  private count(doc: DocTerms, sign: 1 | -1): void {
    this.docCount += sign;
    for (const id of doc.ids) this.df[id] += sign;
    doc.lens.forEach((len, f) => (this.totalLen[f] += sign * len));
  }

  private intern(term: string): number {
    let id = this.ids.get(term);
    if (id !== undefined) return id;
    id = this.terms.length;
    this.ids.set(term, id);
    this.terms.push(term);
    if (id >= this.df.length) {
      const grown = new Uint32Array(this.df.length * 2);
      grown.set(this.df);
      this.df = grown;
    }
    this.unsorted.push(term);
    return id;
  }

  get sorted(): readonly string[] {
    if (this.unsorted.length > 64) {
      this.sortedTerms = this.sortedTerms.concat(this.unsorted).sort();
    } else {
      for (const term of this.unsorted) this.sortedTerms.splice(lowerBound(this.sortedTerms, term), 0, term);
    }
    this.unsorted = [];
    return this.sortedTerms;
  }

  /**
   * BM25F-style score of one term (by id, with its `idf`) in one document, 0 when absent.
   * The field averages are read once per scorer: a query scores thousands of candidates
   * against the same statistics.
   */
  scorer(): (doc: DocTerms, id: number, idf: number) => number {
    const avg = this.totalLen.map((total) => total / Math.max(1, this.docCount) || 1);
    return (doc, id, idf) => {
      const at = indexOf(doc.ids, id);
      if (at < 0) return 0;
      let sum = 0;
      for (let f = 0; f < FIELD_COUNT; f++) {
        const tf = tfAt(doc, at * FIELD_COUNT + f);
        if (tf === 0) continue;
        const norm = 1 - FIELD_B[f] + FIELD_B[f] * (doc.lens[f] / avg[f]);
        sum += FIELD_WEIGHT[f] * (tf * (K1 + 1)) / (tf + K1 * norm);
      }
      return sum * idf;
    };
  }

  /** Field-weighted frequency of the term at position `at` of a document's table. */
  static weightedTf(doc: DocTerms, at: number): number {
    let sum = 0;
    for (let f = 0; f < FIELD_COUNT; f++) sum += FIELD_WEIGHT[f] * tfAt(doc, at * FIELD_COUNT + f);
    return sum;
  }

  /** Terms in the vocabulary starting with `prefix`, most frequent first. */
  expand(prefix: string, max: number): string[] {
    const out: string[] = [];
    const sorted = this.sorted;
    for (let i = lowerBound(sorted, prefix); i < sorted.length && sorted[i].startsWith(prefix); i++) {
      if (sorted[i] !== prefix && this.docFreq(sorted[i]) > 0) out.push(sorted[i]);
    }
    return out.sort((a, b) => this.docFreq(b) - this.docFreq(a)).slice(0, max);
  }

  /** The vocabulary and counters, for the persisted index (document tables go separately). */
  toJSON(): { terms: string[] } {
    return { terms: this.terms };
  }

  static fromJSON(data: { terms: string[] }): TermStats {
    const stats = new TermStats();
    data.terms.forEach((term, id) => stats.ids.set(term, id));
    stats.terms = data.terms.slice();
    stats.df = new Uint32Array(Math.max(1024, data.terms.length * 2));
    stats.sortedTerms = data.terms.slice().sort();
    return stats;
  }
}

export function indexOf(ids: Uint32Array, id: number): number {
  let lo = 0;
  let hi = ids.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (ids[mid] < id) lo = mid + 1;
    else if (ids[mid] > id) hi = mid - 1;
    else return mid;
  }
  return -1;
}
