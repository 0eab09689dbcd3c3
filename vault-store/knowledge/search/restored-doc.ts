import type { IndexedDoc } from './indexed-docs.js';
import type { DocFields } from './docs-section.js';
import { FIELD_COUNT, type DocTerms } from './term-table.js';

/**
 * The term tables as saved: every page's packed table one after another (`tables`) and where
 * each starts (`offsets`), cut per page when a page's table is first read. A view per page
 * made at open was a quarter of a warm start at 100k pages; most pages are never scored
 * before they change.
 */
export class SavedTables {
  /** `lengths`: FIELD_COUNT per page, as the docs section holds them. Throws when they do not add up. */
  constructor(
    private readonly offsets: Uint32Array,
    private readonly tables: Uint8Array,
    private readonly lengths: Uint32Array,
  ) {
    const pages = lengths.length / FIELD_COUNT;
    if (offsets.length !== pages + 1 || offsets[pages] !== tables.length) throw new Error('inconsistent term tables');
    for (let id = 0; id < pages; id++) if (offsets[id] > offsets[id + 1]) throw new Error('inconsistent term tables');
  }

  /** Bytes of page `id`'s table, without cutting it. */
  bytesOf(id: number): number {
    return this.offsets[id + 1] - this.offsets[id];
  }

  /** Where page `id`'s table lies in the section's buffer, without cutting a view. */
  spanOf(id: number, span: TableSpan): void {
    span.buffer = this.tables.buffer;
    span.offset = this.tables.byteOffset + this.offsets[id];
    span.length = this.bytesOf(id);
  }

  of(id: number): DocTerms {
    return {
      bytes: this.tables.subarray(this.offsets[id], this.offsets[id + 1]),
      lens: Array.from(this.lengths.subarray(id * FIELD_COUNT, (id + 1) * FIELD_COUNT)),
    };
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
