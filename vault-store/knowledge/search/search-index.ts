import { BodyStore } from './body-store.js';
import type { DocsBase } from './docs-base.js';
import type { IndexedDoc, IndexedDocs, IndexedPage } from './indexed-docs.js';
import type { PackedPostings } from './pack-postings.js';
import { PairFilters } from './pair-filter.js';
import { Postings } from './postings.js';
import { runSearch, type SearchOptions, type SearchOutcome } from './run-search.js';
import { FIELD_COUNT, TermStats, type FieldTexts } from './term-stats.js';

export type { IndexedDoc, IndexedPage } from './indexed-docs.js';

/**
 * Per page: its doc and term table objects, the table's view, the lengths array, and its
 * entry in the path map.
 */
const DOC_OVERHEAD = 250;
/** Slack the slab may hold past twice the live tables before they are copied afresh. */
const SLAB_SLACK = 4 * 1024 * 1024;

export function fieldTexts(page: IndexedPage): FieldTexts {
  return { title: page.title, body: page.body, tags: page.tags.join(' '), path: page.path.replace(/\.md$/, '') };
}

/**
 * The documents of the search index: a path ↔ numeric id table, the postings that find
 * candidates (by id: a page's postings are numbers, not strings), and the BM25 statistics
 * that rank them. Ids of removed pages are reused.
 */
export class SearchIndex implements IndexedDocs {
  private readonly ids = new Map<string, number>();
  private readonly free: number[] = [];
  /** Each page's field lengths, FIELD_COUNT per id: bounds read them for thousands of pages a query. */
  private lens: Uint32Array = new Uint32Array(0);

  readonly postings: Postings;
  readonly pairs = new PairFilters();
  /** Bytes of the live pages' term tables (what the slab holds beyond them is dead). */
  private tableBytes = 0;
  /** The docs and tables as last saved whole, and the pages changed since (set by the save and the restore). */
  base?: DocsBase;

  /**
   * `packed`: the postings of exactly `docs` (restored), or none to file them anew;
   * `lengths`: their field lengths (restored, kept as given), or none to take them from the
   * term tables; `heldTableBytes`: the buffer restored tables are views of.
   */
  constructor(
    readonly docs: (IndexedDoc | undefined)[] = [],
    readonly stats = new TermStats(),
    packed?: PackedPostings,
    readonly bodies = new BodyStore(),
    lengths?: Uint32Array,
    heldTableBytes = 0,
  ) {
    this.postings = new Postings(docs, packed);
    if (lengths) this.lens = lengths;
    docs.forEach((doc, id) => {
      if (!doc) return void this.free.push(id);
      this.ids.set(doc.path, id);
      if (!lengths) this.setLengths(id, doc.terms.lens);
      this.tableBytes += doc.termBytes?.() ?? doc.terms.bytes.length;
    });
    stats.slab.reset(heldTableBytes);
  }

  get lengths(): Uint32Array {
    return this.lens;
  }

  get size(): number {
    return this.ids.size;
  }

  get(path: string): IndexedDoc | undefined {
    const id = this.ids.get(path);
    return id === undefined ? undefined : this.docs[id];
  }

  /** The page's markdown after the frontmatter. */
  body(doc: IndexedDoc): string {
    return this.bodies.get(doc.id);
  }

  paths(): IterableIterator<string> {
    return this.ids.keys();
  }

  /**
   * True when some page holds `term`, or with `visible`, some page the caller may read: a
   * term only hidden pages hold must not be suggested, completed or even treated as known,
   * or an agent could probe those pages' words. Stops at the first readable holder.
   */
  knows(term: string, visible?: (path: string) => boolean): boolean {
    const id = this.stats.id(term);
    if (id === undefined || this.stats.docFreqOf(id) === 0) return false;
    if (!visible) return true;
    return this.postings.some(id, (page) => visible(this.docs[page]!.path));
  }

  /** Ranked pages for a query; see run-search.ts for the query language. */
  search(query: string, options: SearchOptions = {}): SearchOutcome {
    return runSearch(this, query, options);
  }

  upsert(page: IndexedPage): void {
    const existing = this.ids.get(page.path);
    if (existing !== undefined && this.docs[existing]!.hash === page.hash) return;
    const id = existing ?? this.free.pop() ?? this.docs.length;
    if (existing !== undefined) this.unindex(existing);
    // A free id may hold a filter made while it was free (a phrase check met it, no text to read): never the new page's.
    else this.pairs.forget(id);
    this.base?.changed.add(id);
    const terms = this.stats.add(fieldTexts(page));
    this.tableBytes += terms.bytes.length;
    this.docs[id] = { id, path: page.path, title: page.title, hash: page.hash, tags: page.tags, terms };
    this.compactTables();
    this.bodies.set(id, page.body);
    this.ids.set(page.path, id);
    this.setLengths(id, terms.lens);
    this.postings.add(id);
  }

  remove(path: string): void {
    const id = this.ids.get(path);
    if (id === undefined) return;
    this.unindex(id);
    this.base?.changed.add(id);
    this.docs[id] = undefined;
    this.bodies.delete(id);
    this.ids.delete(path);
    this.free.push(id);
  }

  /**
   * Approximate bytes held, for the memory budget: typed arrays by their length, strings
   * at two bytes a character, and a rough cost per object, map entry and term. Bodies
   * are not counted (they live in the snapshot file once it is written).
   */
  memoryBytes(): number {
    let bytes = this.postings.memoryBytes() + this.pairs.memoryBytes() + this.stats.memoryBytes() + this.lens.byteLength;
    bytes += (this.base?.spans.byteLength ?? 0) + 8 * (this.base?.changed.size ?? 0);
    for (const doc of this.docs) {
      if (!doc) continue;
      bytes += DOC_OVERHEAD + 2 * (doc.path.length + doc.title.length + doc.hash.length);
      for (const tag of doc.tags) bytes += 32 + 2 * tag.length;
      bytes += doc.termBytes?.() ?? doc.terms.bytes.length;
    }
    // The tables' dead bytes, until compactTables copies the live ones out.
    return bytes + Math.max(0, this.stats.slab.allocated - this.tableBytes);
  }

  /** Takes a page's terms out of the statistics and the postings (its doc stays in place). */
  private unindex(id: number): void {
    const { terms } = this.docs[id]!;
    this.tableBytes -= terms.bytes.length;
    this.stats.remove(terms);
    this.postings.remove(id, terms);
    this.pairs.forget(id);
  }

  /**
   * Copies the live term tables into fresh chunks once the slab holds more than twice them:
   * a chunk (or a restored section) stays while any table in it does, so edits would
   * otherwise pin old chunks for good. Docs get new objects, never edited ones: a save
   * may be writing the old tables meanwhile.
   */
  private compactTables(): void {
    const { slab } = this.stats;
    if (slab.allocated <= 2 * this.tableBytes + SLAB_SLACK) return;
    slab.reset(0);
    this.docs.forEach((doc, id) => {
      if (!doc) return;
      const terms = { bytes: slab.copy(doc.terms.bytes, doc.terms.bytes.length), lens: doc.terms.lens };
      // Named, not spread: a restored page is a class whose table is a getter (index-snapshot.ts).
      this.docs[id] = { id, path: doc.path, title: doc.title, hash: doc.hash, tags: doc.tags, terms };
    });
  }

  private setLengths(id: number, lens: number[]): void {
    if ((id + 1) * FIELD_COUNT > this.lens.length) {
      const grown = new Uint32Array(Math.max(1024, (id + 1) * 2) * FIELD_COUNT);
      grown.set(this.lens);
      this.lens = grown;
    }
    this.lens.set(lens, id * FIELD_COUNT);
  }
}
