import { KeyedSection, entriesFormat } from '../keyed-section.js';
import type { SavedSection, Sections, Written } from '../persist.js';
import type { FieldValue, PageFields } from './page-fields.js';

/**
 * Every page's front-matter fields, for queries: only pages that have some, and how many
 * pages use each key (a `sort` must name a field some page has). Persisted as `fields`, and
 * `field-changes` between its whole saves; like the page metas, left on disk by a warm open
 * until first asked for (see KeyedSection). A page's fields are replaced on change, never
 * edited, so a save serialises them outside the write queue.
 */
export class FieldIndex {
  private readonly rows: KeyedSection<PageFields>;
  /** Made when the rows are first read. */
  private keyCounts: Map<string, number> | undefined;

  constructor(saved?: { whole: SavedSection; changes?: SavedSection }) {
    this.rows = new KeyedSection({ whole: 'fields', changes: 'field-changes' }, entriesFormat<PageFields>(), saved);
  }

  /** Replaces a page's fields (none: the page has no front-matter fields). */
  set(path: string, fields: PageFields | undefined): void {
    if (this.keyCounts) this.count(this.rows.map().get(path), -1);
    this.rows.set(path, fields);
    if (this.keyCounts) this.count(fields, 1);
  }

  delete(path: string): void {
    this.set(path, undefined);
  }

  get(path: string): PageFields | undefined {
    return this.pages().get(path);
  }

  /** Whether some page has front-matter key `key` (case-folded). */
  hasKey(key: string): boolean {
    this.pages();
    return this.keyCounts!.has(key);
  }

  sections(pages: number): { sections: Sections; written?: Written } {
    return this.rows.sections(pages);
  }

  /** Estimated heap bytes: per page its map entry and object, per value its size. */
  memoryBytes(): number {
    let bytes = 0;
    for (const [path, fields] of this.rows.loaded ? this.rows.map() : this.rows.pending)
      bytes += 80 + path.length + (fields ? valueBytes(fields) : 0);
    return bytes;
  }

  private pages(): Map<string, PageFields> {
    const pages = this.rows.map();
    if (!this.keyCounts) {
      this.keyCounts = new Map();
      for (const fields of pages.values()) this.count(fields, 1);
    }
    return pages;
  }

  private count(fields: PageFields | undefined, by: 1 | -1): void {
    for (const key of fields ? Object.keys(fields) : []) {
      const n = (this.keyCounts!.get(key) ?? 0) + by;
      if (n > 0) this.keyCounts!.set(key, n);
      else this.keyCounts!.delete(key);
    }
  }
}

function valueBytes(value: FieldValue): number {
  if (typeof value === 'string') return 16 + value.length;
  if (value === null || typeof value !== 'object') return 8;
  const values = Array.isArray(value) ? value : Object.values(value);
  return values.reduce<number>((n, v) => n + 8 + valueBytes(v), 24);
}
