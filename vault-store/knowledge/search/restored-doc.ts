import type { IndexedDoc } from './indexed-docs.js';
import type { DocFields } from './docs-section.js';
import { FIELD_COUNT, type DocTerms } from './term-table.js';

/**
 * The term tables as saved: every page's packed table in `tables` (as last saved whole) or,
 * for the pages changed since, in `changes` (see DocsBase), and where each lies (`spans`:
 * start and end per page, in `tables` followed by `changes`), cut per page when a page's table
 * is first read. A view per page made at open was a quarter of a warm start at 100k pages;
 * most pages are never scored before they change.
 */
export class SavedTables {
  /** `lengths`: FIELD_COUNT per page, as the docs sections hold them. Throws when they do not add up. */
  constructor(
    readonly spans: Uint32Array,
    private readonly tables: Uint8Array,
    private readonly changes: Uint8Array,
    private readonly lengths: Uint32Array,
  ) {
    const pages = lengths.length / FIELD_COUNT;
    const base = tables.length;
    if (spans.length !== 2 * pages) throw new Error('inconsistent term tables');
    for (let id = 0; id < pages; id++) {
      const [start, end] = [spans[2 * id], spans[2 * id + 1]];
      // A table lies wholly in one of the two.
      if (start > end || end > base + changes.length || (start < base && end > base)) throw new Error('inconsistent term tables');
    }
  }

  /** Bytes of page `id`'s table, without cutting it. */
  bytesOf(id: number): number {
    return this.spans[2 * id + 1] - this.spans[2 * id];
  }

  /** Where page `id`'s table lies in the sections' buffers, without cutting a view. */
  spanOf(id: number, span: TableSpan): void {
    const [bytes, start] = this.place(id);
    span.buffer = bytes.buffer;
    span.offset = bytes.byteOffset + start;
    span.length = this.bytesOf(id);
  }

  of(id: number): DocTerms {
    const [bytes, start] = this.place(id);
    return {
      bytes: bytes.subarray(start, start + this.bytesOf(id)),
      lens: Array.from(this.lengths.subarray(id * FIELD_COUNT, (id + 1) * FIELD_COUNT)),
    };
  }

  /** The section page `id`'s table is in, and where it starts there. */
  private place(id: number): [Uint8Array, number] {
    const start = this.spans[2 * id];
    const base = this.tables.length;
    return start < base || this.bytesOf(id) === 0 ? [this.tables, start] : [this.changes, start - base];
  }
}

/** A page as restored: its term table is cut from the saved ones when first read. */
export class RestoredDoc implements IndexedDoc {
  readonly path: string;
  readonly title: string;
  readonly hash: string;
  readonly tags: string[];
  private table: DocTerms | undefined;

  constructor(
    readonly id: number,
    fields: DocFields,
    /** Shared by every restored page: the tables are read after the documents. */
    private readonly tables: () => SavedTables,
  ) {
    ({ path: this.path, title: this.title, hash: this.hash, tags: this.tags } = fields);
  }

  get terms(): DocTerms {
    return (this.table ??= this.tables().of(this.id));
  }

  /** What the table holds, without cutting it (the memory budget asks right after an open). */
  termBytes(): number {
    return this.table ? this.table.bytes.length : this.tables().bytesOf(this.id);
  }

  /** Where the table lies, for a save: a table never read is not cut. */
  spanOf(span: TableSpan): void {
    if (this.table) bytesSpan(this.table.bytes, span);
    else this.tables().spanOf(this.id, span);
  }
}

/** Where a page's table lies: a buffer, and the offset and length of the table in it. */
export interface TableSpan {
  buffer: ArrayBufferLike;
  offset: number;
  length: number;
}

/** Where `doc`'s table lies, for a save, filled into `span`: no object made per page. */
export function tableSpan(doc: IndexedDoc, span: TableSpan): void {
  if (doc instanceof RestoredDoc) doc.spanOf(span);
  else bytesSpan(doc.terms.bytes, span);
}

function bytesSpan(bytes: Uint8Array, span: TableSpan): void {
  span.buffer = bytes.buffer;
  span.offset = bytes.byteOffset;
  span.length = bytes.byteLength;
}
