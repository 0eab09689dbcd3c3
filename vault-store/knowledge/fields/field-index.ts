import { jsonEntries, parseSection, type SavedSection, type SectionValue } from '../persist.js';
import type { FieldValue, PageFields } from './page-fields.js';

type Row = [path: string, fields: PageFields];

/**
 * Every page's front-matter fields, for queries: only pages that have some, and how many
 * pages use each key (a `sort` must name a field some page has). Persisted as its own
 * section, `fields`, and, like the page metas, left on disk by a warm open until first
 * asked for. A page's fields are replaced on change, never edited, so a save
 * serialises them outside the write queue.
 */
export class FieldIndex {
  private pages: Map<string, PageFields> | undefined;
  private keyCounts = new Map<string, number>();

  constructor(private saved?: SavedSection) {
    if (!saved) this.pages = new Map();
  }

  /** Replaces a page's fields (none: the page has no front-matter fields). */
  set(path: string, fields: PageFields | undefined): void {
    const pages = this.loaded();
    this.count(pages.get(path), -1);
    if (fields) pages.set(path, fields);
    else pages.delete(path);
    this.count(fields, 1);
  }

  delete(path: string): void {
    this.set(path, undefined);
  }

  get(path: string): PageFields | undefined {
    return this.loaded().get(path);
  }

  /** Whether some page has front-matter key `key` (case-folded). */
  hasKey(key: string): boolean {
    this.loaded();
    return this.keyCounts.has(key);
  }

  /** The section: the saved one while never read, else rows made when the save writes them. */
  section(): SectionValue {
    return this.pages ? jsonEntries(this.pages) : this.saved!;
  }

  /** Estimated heap bytes: per page its map entry and object, per value its size. */
  memoryBytes(): number {
    if (!this.pages) return 0;
    let bytes = 0;
    for (const [path, fields] of this.pages) bytes += 80 + path.length + valueBytes(fields);
    return bytes;
  }

  private loaded(): Map<string, PageFields> {
    if (!this.pages) {
      this.pages = new Map(parseSection<Row[]>(this.saved!.read()));
      this.saved = undefined;
      for (const fields of this.pages.values()) this.count(fields, 1);
    }
    return this.pages;
  }

  private count(fields: PageFields | undefined, by: 1 | -1): void {
    for (const key of fields ? Object.keys(fields) : []) {
      const n = (this.keyCounts.get(key) ?? 0) + by;
      if (n > 0) this.keyCounts.set(key, n);
      else this.keyCounts.delete(key);
    }
  }
}

function valueBytes(value: FieldValue): number {
  if (typeof value === 'string') return 16 + value.length;
  if (value === null || typeof value !== 'object') return 8;
  const values = Array.isArray(value) ? value : Object.values(value);
  return values.reduce<number>((n, v) => n + 8 + valueBytes(v), 24);
}
