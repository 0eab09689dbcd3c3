import {
  changesFit,
  jsonArrayChunks,
  jsonEntries,
  parseSection,
  type SavedSection,
  type Sections,
  type SectionValue,
  type Written,
} from './persist.js';

/** How the whole section holds the rows. */
export interface KeyedFormat<V> {
  read(bytes: Uint8Array): Map<string, V>;
  /** Taken inside the write queue: copies what it needs of `rows`, serialises when written. */
  write(rows: ReadonlyMap<string, V>): SectionValue;
}

/** A JSON array of `[key, value]`. */
export function entriesFormat<V>(): KeyedFormat<V> {
  return { read: (bytes) => new Map(parseSection<[string, V][]>(bytes)), write: jsonEntries };
}

/** The section names: the whole one, and the changes since it. */
export interface KeyedNames {
  whole: string;
  changes: string;
}

/** The whole section a change list is against, once the store names it, and the keys changed since. */
interface Base {
  saved?: SavedSection;
  changed: Set<string>;
}

/**
 * Rows by page path (page metas, front-matter fields, tasks), saved whole now and then, and in
 * between as the rows changed since (`[key, value or null]`, null for a row gone) beside the
 * whole section's file, kept as it is: at 100k pages the metas' JSON is 52 MB and the fields'
 * 7 MB, and made again at every save under steady writes the metas alone cost ~0.35 s of CPU
 * every 2 s. A warm open leaves both sections on disk until a row is first asked for; changes
 * until then are noted beside them, so a write never waits for the parse. Once read, the whole
 * section's handle is kept unread (its bytes go with the parse). The store names a whole
 * section once it is written; until then, or when that save failed, the next save is whole.
 */
export class KeyedSection<V> {
  private rows: Map<string, V> | undefined;
  /** Before the rows are read: each key changed since the whole section, with its value (null: gone), and the saved changes not yet merged in. */
  private unread: { values: Map<string, V | null>; saved?: SavedSection } | undefined;
  private base: Base;

  /** `saved`: the sections a warm open left on disk; none for a section holding no row yet. */
  constructor(
    private readonly names: KeyedNames,
    private readonly format: KeyedFormat<V>,
    saved?: { whole: SavedSection; changes?: SavedSection },
  ) {
    this.base = { saved: saved?.whole, changed: new Set() };
    if (saved) this.unread = { values: new Map(), saved: saved.changes };
    else this.rows = new Map();
  }

  /** True once the rows are in memory. */
  get loaded(): boolean {
    return this.rows !== undefined;
  }

  /** The changes noted while unread (for the memory estimate); none once read. */
  get pending(): ReadonlyMap<string, V | null> {
    return this.unread?.values ?? new Map();
  }

  /** The rows, read (and checked: a damaged section answers VAULT_BUSY) when first asked for. */
  map(): Map<string, V> {
    if (!this.rows) {
      const values = this.merged();
      const rows = this.format.read(this.base.saved!.read());
      for (const [key, value] of values) {
        if (value === null) rows.delete(key);
        else rows.set(key, value);
      }
      this.base = { saved: this.base.saved!.unread(), changed: new Set(values.keys()) };
      this.unread = undefined;
      this.rows = rows;
    }
    return this.rows;
  }

  /** Replaces a row (undefined: removes it). */
  set(key: string, value: V | undefined): void {
    if (this.unread) return void this.unread.values.set(key, value ?? null);
    if (value === undefined) this.rows!.delete(key);
    else this.rows!.set(key, value);
    this.base.changed.add(key);
  }

  /**
   * What a save writes, taken inside the write queue (values are replaced on change, never
   * edited, so the rows' JSON is made outside it): the whole section as its file or the rows
   * anew, the changes since it, and once a whole one is taken, what gives it to the base.
   */
  sections(pages: number): { sections: Sections; written?: Written } {
    const { whole, changes } = this.names;
    if (this.unread && this.unread.values.size === 0) {
      const { saved } = this.unread;
      return { sections: { [whole]: this.base.saved!, ...(saved ? { [changes]: saved } : {}) } };
    }
    if (this.unread && changesFit(this.merged().size, pages)) {
      const rows = [...this.unread.values];
      return { sections: { [whole]: this.base.saved!, [changes]: () => jsonArrayChunks(rows) } };
    }
    const rows = this.map();
    if (this.base.saved && changesFit(this.base.changed.size, pages)) {
      const changed = [...this.base.changed].map((key) => [key, rows.get(key) ?? null]);
      return { sections: { [whole]: this.base.saved, [changes]: () => jsonArrayChunks(changed) } };
    }
    // Changes from now on are against these rows; their section once written is the base.
    const base: Base = (this.base = { changed: new Set() });
    return { sections: { [whole]: this.format.write(rows) }, written: (saved) => (base.saved = saved(whole)) };
  }

  /** The unread changes with the saved ones merged in (read once: a later save replaces their file). */
  private merged(): Map<string, V | null> {
    const unread = this.unread!;
    if (unread.saved) {
      const saved = parseSection<[string, V | null][]>(unread.saved.read());
      unread.values = new Map([...saved, ...unread.values]);
      unread.saved = undefined;
    }
    return unread.values;
  }
}
