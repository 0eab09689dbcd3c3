import { BodyStore } from './body-store.js';
import { FlexIndex } from './flex-index.js';
import type { IndexedDoc, IndexedDocs, IndexedPage } from './indexed-docs.js';
import { runSearch, type SearchOptions, type SearchOutcome } from './run-search.js';
import { FIELD_COUNT, FIELDS, TermStats, type FieldTexts } from './term-stats.js';

export type { IndexedDoc, IndexedPage } from './indexed-docs.js';

export function fieldTexts(page: IndexedPage): FieldTexts {
  return { title: page.title, body: page.body, tags: page.tags.join(' '), path: page.path.replace(/\.md$/, '') };
}

/**
 * The documents of the search index: a path ↔ numeric id table (FlexSearch is several
 * times faster and smaller with numeric ids), the FlexSearch index that finds candidates,
 * and the BM25 statistics that rank them. Ids of removed pages are reused.
 */
export class SearchIndex implements IndexedDocs {
  private readonly ids = new Map<string, number>();
  private readonly free: number[] = [];
  /** Each page's field lengths, FIELD_COUNT per id: bounds read them for thousands of pages a query. */
  private lens = new Uint32Array(0);

  constructor(
    readonly docs: (IndexedDoc | undefined)[] = [],
    readonly stats = new TermStats(),
    readonly flex = FlexIndex.create(),
    readonly bodies = new BodyStore(),
  ) {
    docs.forEach((doc, id) => {
      if (!doc) return void this.free.push(id);
      this.ids.set(doc.path, id);
      this.setLengths(id, doc.terms.lens);
    });
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
    if (this.stats.docFreq(term) === 0) return false;
    if (!visible) return true;
    for (const field of FIELDS) {
      for (const ids of this.flex.postings(term, field)) {
        for (const id of ids ?? []) {
          const doc = this.docs[id];
          if (doc && visible(doc.path)) return true;
        }
      }
    }
    return false;
  }

  /** Ranked pages for a query; see run-search.ts for the query language. */
  search(query: string, options: SearchOptions = {}): SearchOutcome {
    return runSearch(this, query, options);
  }

  upsert(page: IndexedPage): void {
    const existing = this.ids.get(page.path);
    if (existing !== undefined && this.docs[existing]!.hash === page.hash) return;
    const id = existing ?? this.free.pop() ?? this.docs.length;
    const before = existing === undefined ? undefined : this.docs[existing]!.terms;
    const beforeTerms = before && this.stats.pageTerms(before);
    if (before) this.stats.remove(before);
    const { terms, distinct } = this.stats.add(fieldTexts(page));
    this.docs[id] = { id, path: page.path, title: page.title, hash: page.hash, tags: page.tags, terms };
    this.bodies.set(id, page.body);
    this.ids.set(page.path, id);
    this.setLengths(id, terms.lens);
    if (beforeTerms) this.flex.update(id, beforeTerms, distinct);
    else this.flex.add(id, distinct);
  }

  remove(path: string): void {
    const id = this.ids.get(path);
    if (id === undefined) return;
    this.stats.remove(this.docs[id]!.terms);
    this.flex.remove(id);
    this.docs[id] = undefined;
    this.bodies.delete(id);
    this.ids.delete(path);
    this.free.push(id);
  }

  private setLengths(id: number, lens: number[]): void {
    if ((id + 1) * FIELD_COUNT > this.lens.length) {
      const grown = new Uint32Array(Math.max(1024, (id + 1) * 2) * FIELD_COUNT);
      grown.set(this.lens);
      this.lens = grown;
    }
    this.lens.set(lens, id * FIELD_COUNT);
  }

  /** Rough heap bytes (a placeholder estimate): per page its entry and term table, ~25 bytes a FlexSearch posting. */
  memoryBytes(): number {
    let bytes = this.lens.byteLength;
    for (const doc of this.docs) {
      if (!doc) continue;
      const { ids, tf } = doc.terms;
      bytes += 200 + doc.path.length + doc.title.length + ids.byteLength + tf.byteLength + ids.length * 25;
    }
    return bytes;
  }
}
