import { lowerBound } from '../../sorted.js';
import { scanTerms } from './tokenize.js';
import { Vocabulary } from './vocabulary.js';

/**
 * BM25 term statistics, kept exact under every add and remove so ranking never drifts
 * from what a rebuild would give. Terms get numeric ids from a vocabulary that only grows
 * (a rebuild compacts it); each document keeps its distinct term ids sorted, with
 * per-field frequencies, in typed arrays: 10k pages cost a few tens of MB, not hundreds.
 */

export const FIELDS = ['title', 'body', 'tags', 'path'] as const;
export type Field = (typeof FIELDS)[number];
export const FIELD_COUNT = FIELDS.length;

/** Field texts of one page, before tokenizing. */
export type FieldTexts = Record<Field, string>;

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

export class TermStats {
  private vocabulary = new Vocabulary();
  /** Documents holding each term, by term id. */
  private df = new Uint32Array(1024);
  /** Per term id, the last `add` that met it and its row in that add's counts. */
  private stamps = new Uint32Array(1024);
  private rows = new Uint32Array(1024);
  private stamp = 0;
  /** Scratch counts of the document being added, FIELD_COUNT per row. */
  private counts = new Uint32Array(4096);
  /** Every term ever seen, sorted; for prefix expansion and typo suggestions. */
  private sortedTerms: string[] = [];
  /** Terms added since `sorted` was last read: merged lazily, so a build sorts once. */
  private unsorted: string[] = [];
  private readonly totalLen = new Array<number>(FIELD_COUNT).fill(0);
  docCount = 0;

  term(id: number): string {
    return this.vocabulary.terms[id];
  }

  id(term: string): number | undefined {
    return this.vocabulary.id(term);
  }

  docFreq(term: string): number {
    const id = this.vocabulary.id(term);
    return id === undefined ? 0 : this.df[id];
  }

  idf(id: number): number {
    const df = this.df[id];
    return Math.log(1 + (this.docCount - df + 0.5) / (df + 0.5));
  }

  /**
   * Tokenizes and counts a new document into the statistics; returns its term table. The
   * costliest loop of a build (five million tokens on 10k pages): tokens are looked up in
   * place and counted in reused scratch arrays, nothing is allocated per token.
   */
  add(texts: FieldTexts): DocTerms {
    const stamp = ++this.stamp;
    const order: number[] = [];
    const lens = new Array<number>(FIELD_COUNT).fill(0);
    let f = 0;
    const sink = (source: string, start: number, end: number) => {
      const id = this.intern(source, start, end);
      let row = this.rows[id];
      if (this.stamps[id] !== stamp) {
        this.stamps[id] = stamp;
        this.rows[id] = row = order.length;
        order.push(id);
        if ((row + 1) * FIELD_COUNT > this.counts.length) this.counts = grown(this.counts, (row + 1) * FIELD_COUNT);
        this.counts.fill(0, row * FIELD_COUNT, (row + 1) * FIELD_COUNT);
      }
      this.counts[row * FIELD_COUNT + f]++;
      lens[f] += 1;
    };
    FIELDS.forEach((field, i) => {
      f = i;
      scanTerms(texts[field], sink);
    });
    const ids = Uint32Array.from(order).sort();
    const tf = new Uint8Array(ids.length * FIELD_COUNT);
    const doc: DocTerms = { ids, tf, lens };
    for (let i = 0; i < ids.length; i++) {
      const row = this.rows[ids[i]];
      for (let g = 0; g < FIELD_COUNT; g++) {
        const count = this.counts[row * FIELD_COUNT + g];
        const k = i * FIELD_COUNT + g;
        tf[k] = Math.min(count, TF_MORE);
        if (count >= TF_MORE) (doc.more ??= new Map()).set(k, Math.min(count, TF_MAX));
      }
    }
    this.count(doc, 1);
    return doc;
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

  private intern(source: string, start: number, end: number): number {
    const before = this.vocabulary.size;
    const id = this.vocabulary.intern(source, start, end);
    if (id < before) return id;
    if (id >= this.df.length) {
      const size = this.df.length * 2;
      this.df = grown(this.df, size);
      this.stamps = grown(this.stamps, size);
      this.rows = grown(this.rows, size);
    }
    this.unsorted.push(this.vocabulary.terms[id]);
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

  /** Mean length of each field, in terms, over the documents. */
  averageLengths(): number[] {
    return this.totalLen.map((total) => total / Math.max(1, this.docCount) || 1);
  }

  /** Terms in the vocabulary starting with `prefix` that `known` accepts, most frequent first. */
  expand(prefix: string, max: number, known: (term: string) => boolean): string[] {
    const out: string[] = [];
    const sorted = this.sorted;
    for (let i = lowerBound(sorted, prefix); i < sorted.length && sorted[i].startsWith(prefix); i++) {
      if (sorted[i] !== prefix && known(sorted[i])) out.push(sorted[i]);
    }
    return out.sort((a, b) => this.docFreq(b) - this.docFreq(a)).slice(0, max);
  }

  /** Approximate bytes held: the vocabulary, the per-term counters and the sorted terms. */
  memoryBytes(): number {
    const arrays = [this.df, this.stamps, this.rows, this.counts];
    return (
      this.vocabulary.memoryBytes() + arrays.reduce((n, a) => n + a.byteLength, 0) + 8 * (this.sortedTerms.length + this.unsorted.length)
    );
  }

  /** The vocabulary and counters, for the persisted index (document tables go separately). */
  toJSON(): { terms: string[] } {
    return { terms: this.vocabulary.terms };
  }

  static fromJSON(data: { terms: string[] }): TermStats {
    const stats = new TermStats();
    for (const term of data.terms) stats.intern(term, 0, term.length);
    stats.unsorted = [];
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

function grown(array: Uint32Array, size: number): Uint32Array<ArrayBuffer> {
  const next = new Uint32Array(Math.max(size, array.length * 2));
  next.set(array);
  return next;
}
