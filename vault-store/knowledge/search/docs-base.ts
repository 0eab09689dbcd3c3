import { changesFit, type SavedSection, type SectionStream } from '../persist.js';
import { docsSection, readDocsSection, type DocFields } from './docs-section.js';
import { ownBuffer } from './pack-postings.js';
import { FIELD_COUNT } from './term-table.js';

/**
 * The `docs` and `tables` sections as last saved whole, and the pages changed since: a save
 * in between keeps both files as they are and writes only the changed pages, as `doc-changes`
 * (their ids, then a docs section of them) and `table-changes` (their tables one after
 * another), with `offsets` saying where every page's table lies in `tables` followed by
 * `table-changes`. At 100k pages the two whole sections are 75 MB, and written at every save
 * under steady writes they were most of its disk writes.
 */
export interface DocsBase {
  /** The sections as the store names them once written; until then the next save goes whole. */
  docs?: SavedSection;
  tables?: SavedSection;
  /** Start and end of each page's table in the whole `tables` (two words per id). */
  spans: Uint32Array;
  /** Bytes of the whole `tables`. */
  size: number;
  /** Ids of the pages changed (added, edited or removed) since. */
  changed: Set<number>;
}

/** True when a save may write the changes since `base` only. */
export function savesChanges(base: DocsBase | undefined, pages: number): base is DocsBase & Required<Pick<DocsBase, 'docs' | 'tables'>> {
  return !!base?.docs && !!base.tables && changesFit(base.changed.size, pages);
}

/** The `doc-changes` section: the count and ids of the changed pages, then their docs section (holes for removed ones). */
export async function* docChangesSection(
  ids: readonly number[],
  docs: readonly (DocFields | undefined)[],
  lengths: Uint32Array,
): SectionStream {
  const changed = new Uint32Array(ids.length * FIELD_COUNT);
  ids.forEach((id, i) => changed.set(lengths.subarray(id * FIELD_COUNT, (id + 1) * FIELD_COUNT), i * FIELD_COUNT));
  const head = new Uint32Array(1 + ids.length);
  head[0] = ids.length;
  head.set(ids, 1);
  yield new Uint8Array(head.buffer);
  yield* docsSection(
    ids.map((id) => docs[id]),
    changed,
  );
}

/**
 * Applies a `doc-changes` section to the docs and lengths read from the whole `docs`: each
 * changed page made by `make` with its own id, or a hole. Returns the docs, the lengths (grown
 * when pages were added past the whole section's) and the changed ids. Throws on a section
 * that does not add up; the caller rebuilds.
 */
export function applyDocChanges<T>(
  section: Uint8Array,
  base: { docs: (T | undefined)[]; lengths: Uint32Array },
  make: (id: number, fields: DocFields) => T,
): { docs: (T | undefined)[]; lengths: Uint32Array; changed: Set<number> } {
  const [buffer, offset] = ownBuffer(section, 4);
  if (section.byteLength < 4) throw new Error('bad doc changes');
  const count = new Uint32Array(buffer, offset, 1)[0];
  if (4 * (1 + count) > section.byteLength) throw new Error('bad doc changes');
  const ids = new Uint32Array(buffer, offset + 4, count);
  const rest = new Uint8Array(buffer, offset + 4 * (1 + count), section.byteLength - 4 * (1 + count));
  const changes = readDocsSection(rest, (i, fields) => make(ids[i], fields));
  if (changes.docs.length !== count) throw new Error('bad doc changes');
  // Ids past the whole section's are given in order as pages are added: never more than one new id per change.
  const pages = ids.reduce((n, id) => Math.max(n, id + 1), base.docs.length);
  if (pages > base.docs.length + count) throw new Error('bad doc changes');
  const docs = base.docs.concat(new Array<T | undefined>(pages - base.docs.length).fill(undefined));
  const lengths = new Uint32Array(pages * FIELD_COUNT);
  lengths.set(base.lengths);
  ids.forEach((id, i) => {
    docs[id] = changes.docs[i];
    lengths.set(changes.lengths.subarray(i * FIELD_COUNT, (i + 1) * FIELD_COUNT), id * FIELD_COUNT);
  });
  return { docs, lengths, changed: new Set(ids) };
}
