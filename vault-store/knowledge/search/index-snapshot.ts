import type { LoadedSections, SavedSection, Sections, SectionStream, Written } from '../persist.js';
import type { BodyStore } from './body-store.js';
import { applyDocChanges, docChangesSection, savesChanges, type DocsBase } from './docs-base.js';
import { docsSection, readDocsSection, type DocFields } from './docs-section.js';
import { fromSections, ownBuffer, type PostingsSections } from './pack-postings.js';
import { RestoredDoc, SavedTables, tableSpan, type TableSpan } from './restored-doc.js';
import { SearchIndex, type IndexedDoc } from './search-index.js';
import { TermStats } from './term-stats.js';
import { FIELD_COUNT } from './term-table.js';

/**
 * The search index as persisted sections: documents, vocabulary and its counts, term tables,
 * postings (bodies are saved by their store). Taken inside the write queue, where only the
 * page list, the field lengths and the document counts are copied and the vocabulary's size
 * noted: a page's doc and term table are replaced on change, never edited, and the vocabulary
 * only grows. The sections are made from them when the save is written, outside the queue
 * (made inside it, with their checksums, they held writes up for 40–100 ms every save).
 * The docs and tables go whole now and then, and as the pages changed since in between (see
 * DocsBase); when they go whole, `written` gives the new base its sections.
 */
export function snapshotIndex(index: SearchIndex): { sections: Sections; written?: Written } {
  const docs = [...index.docs];
  const lengths = index.lengths.slice(0, docs.length * FIELD_COUNT);
  // Small (4 bytes a term), and later commits change the counts.
  const df = index.stats.docFreqs();
  const sections: Sections = {
    terms: () => vocabularySection(index.stats, df.length),
    df: bytes(df),
    ...postingsSections(index),
  };
  const { base } = index;
  if (savesChanges(base, index.size)) {
    // As they are now: pages changed while the save is written are the next one's.
    const changed = [...base.changed].sort((a, b) => a - b);
    const since = { ...base, changed: new Set(changed) };
    Object.assign(sections, {
      docs: base.docs,
      tables: base.tables,
      'doc-changes': () => docChangesSection(changed, docs, lengths),
      'table-changes': () => tableRuns(changed.map((id) => docs[id])),
      offsets: () => bytes(tableSpans(docs, since).spans),
    });
    return { sections };
  }
  // Changes from now on are against these sections; once written they are the base.
  const whole: DocsBase = (index.base = { spans: new Uint32Array(0), size: 0, changed: new Set() });
  Object.assign(sections, {
    docs: () => docsSection(docs, lengths),
    tables: () => tableRuns(docs),
    offsets: () => {
      ({ spans: whole.spans, end: whole.size } = tableSpans(docs));
      return bytes(whole.spans);
    },
  });
  return {
    sections,
    written: (saved) => {
      whole.docs = saved('docs');
      whole.tables = saved('tables');
    },
  };
}

/**
 * Where each page's table lies, start and end: one after another in id order, or with `base`,
 * as there for the pages unchanged since and one after another past its end for the others.
 */
function tableSpans(docs: readonly (IndexedDoc | undefined)[], base?: DocsBase): { spans: Uint32Array; end: number } {
  const spans = new Uint32Array(2 * docs.length);
  let at = base?.size ?? 0;
  docs.forEach((doc, id) => {
    if (!doc) return;
    if (base && !base.changed.has(id)) {
      if (2 * id + 1 >= base.spans.length) throw new Error(`page ${id} is neither in the saved tables nor changed since`);
      spans.set(base.spans.subarray(2 * id, 2 * id + 2), 2 * id);
      return;
    }
    spans[2 * id] = at;
    spans[2 * id + 1] = at += doc.termBytes?.() ?? doc.terms.bytes.length;
  });
  return { spans, end: at };
}

/** Bytes a piece of the `tables` section holds at most. */
const RUN_BYTES = 1 << 20;

/**
 * Pages' tables one after another, as views of where they lie: a run of tables adjacent
 * in memory (restored ones in their section, tables made one after another in a slab chunk)
 * is one piece, so nothing is copied and no object is made per page. Each page's table as a
 * piece of its own (a view, and a table object for each restored one) held ~75 MB of a save's
 * heap at 100k pages, and copied into one array, 2 × 105 MB.
 */
async function* tableRuns(docs: readonly (IndexedDoc | undefined)[]): SectionStream {
  const span: TableSpan = { buffer: new ArrayBuffer(0), offset: 0, length: 0 };
  let run: TableSpan = { ...span };
  for (const doc of docs) {
    if (!doc) continue;
    tableSpan(doc, span);
    if (span.buffer === run.buffer && span.offset === run.offset + run.length && run.length + span.length <= RUN_BYTES) {
      run.length += span.length;
      continue;
    }
    if (run.length > 0) yield new Uint8Array(run.buffer, run.offset, run.length);
    run = { ...span };
  }
  if (run.length > 0) yield new Uint8Array(run.buffer, run.offset, run.length);
}

/**
 * The postings' sections, packed once for all when they need packing. The packed arrays
 * never change, so even as they are they go as functions: their checksums (tens of MB at
 * 100k pages) are then taken outside the write queue.
 */
function postingsSections(index: SearchIndex): Sections {
  const snapshot = index.postings.snapshot();
  const sections: () => PostingsSections | Promise<PostingsSections> = typeof snapshot === 'function' ? once(snapshot) : () => snapshot;
  return {
    'postings-starts': async () => (await sections())['postings-starts'],
    postings: async () => (await sections()).postings,
    'postings-alive': async () => (await sections())['postings-alive'],
    'postings-averages': async () => (await sections())['postings-averages'],
  };
}

function once<T>(make: () => Promise<T>): () => Promise<T> {
  let made: Promise<T> | undefined;
  return () => (made ??= make());
}

/**
 * Throws when a section is missing or inconsistent; the caller rebuilds. `bodies` is the
 * store saved with it; `saved`, the store's handles of the sections, which become the base
 * later saves write their changes against (see DocsBase).
 */
export function restoreIndex(sections: LoadedSections, bodies: BodyStore, saved?: (name: string) => SavedSection | undefined): SearchIndex {
  if (!sections.docs || !sections.tables) throw new Error('missing sections');
  const read: { tables?: SavedTables } = {};
  const tables = () => read.tables!;
  const make = (id: number, fields: DocFields) => new RestoredDoc(id, fields, tables);
  const whole = readDocsSection(sections.docs, make);
  // The lengths copied either way: a view would keep the whole docs section (its strings are decoded already).
  const { docs, lengths, changed } = sections['doc-changes']
    ? applyDocChanges(sections['doc-changes'], whole, make)
    : { ...whole, lengths: whole.lengths.slice(), changed: new Set<number>() };
  const changes = sections['table-changes'] ?? new Uint8Array(0);
  read.tables = new SavedTables(typed(Uint32Array, sections.offsets), sections.tables, changes, lengths);
  const stats = readVocabularySection(sections.terms);
  const totalLen = new Array<number>(FIELD_COUNT).fill(0);
  let count = 0;
  for (let id = 0; id < docs.length; id++) {
    if (!docs[id]) continue;
    if (read.tables.bytesOf(id) === 0) throw new Error('inconsistent term tables');
    count += 1;
    for (let f = 0; f < FIELD_COUNT; f++) totalLen[f] += lengths[id * FIELD_COUNT + f];
  }
  stats.restoreCounts(typed(Uint32Array, sections.df), count, totalLen);
  if (bodies.size > docs.length) throw new Error('inconsistent bodies');
  const index = new SearchIndex(docs, stats, fromSections(sections), bodies, lengths, sections.tables.byteLength + changes.byteLength);
  index.base = {
    docs: saved?.('docs'),
    tables: saved?.('tables'),
    spans: read.tables.spans,
    size: sections.tables.byteLength,
    changed,
  };
  return index;
}

/** The vocabulary: its size, the term ids in sorted order, then the terms by id, NUL-separated (no term holds one). */
function vocabularySection(stats: TermStats, size: number): Uint8Array[] {
  const { order, text } = stats.savedVocabulary(size);
  return [bytes(Uint32Array.of(order.length)), bytes(order), ...text];
}

function readVocabularySection(section: Uint8Array | undefined): TermStats {
  if (!section || section.byteLength < 4) throw new Error('bad vocabulary');
  // Views, not copies where the section is aligned (its own buffer): the terms stay the section's bytes (see SavedTerms).
  const words = section.byteOffset % 4 === 0 ? section : new Uint8Array(section);
  const size = new Uint32Array(words.buffer, words.byteOffset, 1)[0];
  if (4 * (1 + size) > words.byteLength) throw new Error('bad vocabulary');
  const order = new Uint32Array(words.buffer, words.byteOffset + 4, size);
  const text = Buffer.from(words.buffer, words.byteOffset + 4 * (1 + size), words.byteLength - 4 * (1 + size));
  return TermStats.restore(text, order);
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
