import { SavedTerms, type TermFilter } from './saved-terms.js';
import { FIELD_COUNT, TableSlab, TableWriter, TermCursor, type DocTerms } from './term-table.js';
import { scanTerms } from './tokenize.js';
import { Vocabulary } from './vocabulary.js';

/**
 * BM25 term statistics, kept exact under every add and remove so ranking never drifts
 * from what a rebuild would give. Terms get numeric ids from a vocabulary that only grows
 * (a rebuild compacts it); each document keeps its distinct term ids sorted, with
 * per-field frequencies, in a packed table (term-table.ts) cut from `slab`.
 */

export const FIELDS = ['title', 'body', 'tags', 'path'] as const;
export type Field = (typeof FIELDS)[number];
export { FIELD_COUNT, type DocTerms } from './term-table.js';

/** Field texts of one page, before tokenizing. */
export type FieldTexts = Record<Field, string>;

export class TermStats {
  /** Documents holding each term, by term id. */
  private df: Uint32Array;
  /** Per term id, the last `add` that met it and its row in that add's counts (made at the first add). */
  private stamps = new Uint32Array(0);
  private rows = new Uint32Array(0);
  private stamp = 0;
  /** Scratch counts of the document being added, FIELD_COUNT per row. */
  private counts = new Uint32Array(0);
  private readonly totalLen = new Array<number>(FIELD_COUNT).fill(0);
  private readonly writer = new TableWriter();
  private readonly cursor = new TermCursor();
  /** Where new tables are cut from (SearchIndex compacts it). */
  readonly slab = new TableSlab();
  docCount = 0;

  /** Over a restored vocabulary (see `restore`), or a new one. */
  constructor(private readonly vocabulary = new Vocabulary()) {
    this.df = new Uint32Array(Math.max(1024, vocabulary.size));
  }

  term(id: number): string {
    return this.vocabulary.term(id);
  }

  id(term: string): number | undefined {
    return this.vocabulary.id(term);
  }

  docFreq(term: string): number {
    const id = this.vocabulary.id(term);
    return id === undefined ? 0 : this.df[id];
  }

  /** `docFreq` of a term by its id: no lookup by string. */
  docFreqOf(id: number): number {
    return this.df[id];
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
    if (this.stamps.length < this.df.length)
      [this.stamps, this.rows] = [grown(this.stamps, this.df.length), grown(this.rows, this.df.length)];
    if (this.counts.length === 0) this.counts = new Uint32Array(4096);
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
    this.writer.start(ids.length);
    for (const id of ids) this.writer.term(id, this.counts, this.rows[id] * FIELD_COUNT);
    const doc: DocTerms = { bytes: this.writer.take(this.slab), lens };
    this.count(doc, 1);
    return doc;
  }

  remove(doc: DocTerms): void {
    this.count(doc, -1);
  }

  /**
   * The counts of the documents restored with this vocabulary, as saved (`docFreqs`) and
   * summed from their field lengths: no term table is read at a warm open.
   */
  restoreCounts(df: Uint32Array, docCount: number, totalLen: readonly number[]): void {
    if (df.length !== this.vocabulary.size) throw new Error('inconsistent term counts');
    this.df.set(df);
    this.docCount = docCount;
    totalLen.forEach((len, f) => (this.totalLen[f] = len));
  }

  /** Documents per term id, for the persisted index: a copy, taken while the caller holds the index still. */
  docFreqs(): Uint32Array {
    return this.df.slice(0, this.vocabulary.size);
  }

  private count(doc: DocTerms, sign: 1 | -1): void {
    this.docCount += sign;
    const cursor = this.cursor.open(doc);
    while (cursor.next()) this.df[cursor.id] += sign;
    doc.lens.forEach((len, f) => (this.totalLen[f] += sign * len));
  }

  private intern(source: string, start: number, end: number): number {
    const id = this.vocabulary.intern(source, start, end);
    if (id >= this.df.length) {
      const size = this.df.length * 2;
      this.df = grown(this.df, size);
      this.stamps = grown(this.stamps, size);
      this.rows = grown(this.rows, size);
    }
    return id;
  }

  /** Every term, sorted, from the first not below `from`; with `filter`, only those it may admit (typo fixes). */
  sorted(from = '', filter?: TermFilter): Iterable<string> {
    return this.vocabulary.sorted(from, filter);
  }

  /** Mean length of each field, in terms, over the documents. */
  averageLengths(): number[] {
    return this.totalLen.map((total) => total / Math.max(1, this.docCount) || 1);
  }

  /** Terms in the vocabulary starting with `prefix` that `known` accepts, most frequent first. */
  expand(prefix: string, max: number, known: (term: string) => boolean): string[] {
    // Each term's count is looked up once: looked up in the comparison, a 4-letter prefix with
    // ~120 completions at 100k pages spent 1–2 ms on lookups by string. The sort is stable, so
    // equal counts keep the vocabulary's order, as before.
    const found: { term: string; df: number }[] = [];
    for (const term of this.vocabulary.sorted(prefix)) {
      if (!term.startsWith(prefix)) break;
      if (term !== prefix && known(term)) found.push({ term, df: this.docFreq(term) });
    }
    return found
      .sort((a, b) => b.df - a.df)
      .slice(0, max)
      .map((f) => f.term);
  }

  /** Approximate bytes held: the vocabulary (with its sorted order) and the per-term counters. */
  memoryBytes(): number {
    const arrays = [this.df, this.stamps, this.rows, this.counts];
    return this.vocabulary.memoryBytes() + arrays.reduce((n, a) => n + a.byteLength, 0);
  }

  /**
   * The vocabulary for the persisted index (counts and document tables go separately): its
   * term ids in sorted order, and the terms by id, NUL-separated, so that a restore sorts
   * nothing. `size`: only the first terms, the vocabulary as a save took it (terms are only
   * ever added, so their order is the same).
   */
  savedVocabulary(size = this.vocabulary.size): { order: Uint32Array; text: Uint8Array[] } {
    return this.vocabulary.savedForm(size);
  }

  /** Statistics over a saved vocabulary (see `savedVocabulary`), its terms read in place; throws when it does not add up. */
  static restore(text: Buffer, order: Uint32Array): TermStats {
    return new TermStats(new Vocabulary(new SavedTerms(text, order)));
  }
}

function grown(array: Uint32Array, size: number): Uint32Array<ArrayBuffer> {
  const next = new Uint32Array(Math.max(size, array.length * 2, 1024));
  next.set(array);
  return next;
}
