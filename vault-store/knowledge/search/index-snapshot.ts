import { jsonSection, parseSection, type LoadedSections, type Sections } from '../persist.js';
import type { BodyStore } from './body-store.js';
import { fromSections, ownBuffer } from './pack-postings.js';
import { SearchIndex, type IndexedDoc } from './search-index.js';
import { TermStats } from './term-stats.js';
import type { DocTerms } from './term-table.js';

type DocRow = [path: string, title: string, hash: string, tags: string[], lens: number[]] | null;

/** The search index as persisted sections: documents, vocabulary, term tables, postings (bodies are saved by their store). */
export function snapshotIndex(index: SearchIndex): Sections {
  const rows: DocRow[] = index.docs.map((d) => (d ? [d.path, d.title, d.hash, d.tags, d.terms.lens] : null));
  const offsets = new Uint32Array(index.docs.length + 1);
  index.docs.forEach((d, i) => (offsets[i + 1] = offsets[i] + (d?.terms.bytes.length ?? 0)));
  // Each page's own table as a chunk: a table is never edited (a change replaces it), and
  // one copy of them all cost 2 × 105 MB at the peak of a save at 100k pages.
  const tables: Uint8Array[] = [];
  for (const d of index.docs) if (d) tables.push(d.terms.bytes);
  return {
    docs: jsonSection(rows),
    terms: jsonSection(index.stats.toJSON()),
    df: bytes(index.stats.dfSection()),
    offsets: bytes(offsets),
    tables,
    ...index.postings.sections(),
  };
}

/** Throws when a section is missing or inconsistent; the caller rebuilds. `bodies` is the store saved with it. */
export function restoreIndex(sections: LoadedSections, bodies: BodyStore): SearchIndex {
  const rows = parseSection<DocRow[]>(sections.docs);
  const stats = TermStats.fromJSON(parseSection(sections.terms), typed(Uint32Array, sections.df));
  const offsets = typed(Uint32Array, sections.offsets);
  const tables = sections.tables;
  if (!tables || offsets.length !== rows.length + 1 || offsets[rows.length] !== tables.length) throw new Error('inconsistent term tables');
  const docs = rows.map((row, id): IndexedDoc | undefined => {
    if (!row) return undefined;
    const [path, title, hash, tags, lens] = row;
    // A view, not a copy: the section's buffer holds every table (SearchIndex counts it in its slab).
    const terms: DocTerms = { bytes: tables.subarray(offsets[id], offsets[id + 1]), lens };
    if (terms.bytes.length === 0) throw new Error('inconsistent term tables');
    stats.restore(terms);
    return { id, path, title, hash, tags, terms };
  });
  if (bodies.size > rows.length) throw new Error('inconsistent bodies');
  return new SearchIndex(docs, stats, fromSections(sections), bodies, tables.byteLength);
}

function bytes(view: ArrayBufferView): Uint8Array {
  return new Uint8Array(view.buffer, view.byteOffset, view.byteLength);
}

/** The section as a `Kind` array, in place when it has a buffer of its own (each big section does). */
function typed<T extends Uint32Array | Uint8Array>(
  Kind: { new (buffer: ArrayBufferLike, offset: number, length: number): T; BYTES_PER_ELEMENT: number },
  section: Uint8Array | undefined,
): T {
  if (!section || section.byteLength % Kind.BYTES_PER_ELEMENT) throw new Error('bad term table');
  return new Kind(...ownBuffer(section, Kind.BYTES_PER_ELEMENT));
}
