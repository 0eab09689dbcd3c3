import { jsonSection, parseSection, type LoadedSections, type Sections } from '../persist.js';
import type { BodyStore } from './body-store.js';
import { fromSections, ownBuffer, type PostingsSections } from './pack-postings.js';
import { SearchIndex, type IndexedDoc } from './search-index.js';
import { TermStats } from './term-stats.js';
import type { DocTerms } from './term-table.js';

type DocRow = [path: string, title: string, hash: string, tags: string[], lens: number[]] | null;

/**
 * The search index as persisted sections: documents, vocabulary, term tables, postings
 * (bodies are saved by their store). Taken inside the write queue, where only the page list
 * and the vocabulary's length are copied: a page's doc and term table are replaced on change,
 * never edited, and the vocabulary only grows. The sections are made from them when the save
 * is written, outside the queue (made inside it, with their checksums, they held writes up
 * for 40–100 ms every save).
 */
export function snapshotIndex(index: SearchIndex): Sections {
  const docs = [...index.docs];
  const { terms } = index.stats.toJSON();
  const termCount = terms.length;
  // A copy, and small (4 bytes a term): later commits change the counts.
  const df = index.stats.dfSection();
  return {
    docs: () => jsonSection(docs.map((d): DocRow => (d ? [d.path, d.title, d.hash, d.tags, d.terms.lens] : null))),
    terms: () => jsonSection({ terms: terms.slice(0, termCount) }),
    df: bytes(df),
    offsets: () => tableOffsets(docs),
    tables: () => docs.flatMap((d) => (d ? [d.terms.bytes] : [])),
    ...postingsSections(index),
  };
}

/** Where each page's table starts in the `tables` section (each page's own table is a chunk of it, never copied into one array). */
function tableOffsets(docs: readonly (IndexedDoc | undefined)[]): Uint8Array {
  const offsets = new Uint32Array(docs.length + 1);
  docs.forEach((d, i) => (offsets[i + 1] = offsets[i] + (d?.terms.bytes.length ?? 0)));
  return bytes(offsets);
}

/** The postings' two sections, packed once for both when they need packing. */
function postingsSections(index: SearchIndex): Sections {
  const snapshot = index.postings.snapshot();
  if (typeof snapshot !== 'function') return { ...snapshot };
  let packed: Promise<PostingsSections> | undefined;
  const sections = () => (packed ??= snapshot());
  return { 'postings-starts': async () => (await sections())['postings-starts'], postings: async () => (await sections()).postings };
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
