import { jsonSection, parseSection, type LoadedSections, type Sections } from '../persist.js';
import type { BodyStore } from './body-store.js';
import { fromSections, ownBuffer } from './pack-postings.js';
import { SearchIndex, type IndexedDoc } from './search-index.js';
import { FIELD_COUNT, TF_MORE, TermStats, type DocTerms } from './term-stats.js';

type DocRow = [path: string, title: string, hash: string, tags: string[], lens: number[]] | null;

/** The search index as persisted sections: documents, vocabulary, term tables, postings (bodies are saved by their store). */
export function snapshotIndex(index: SearchIndex): Sections {
  const rows: DocRow[] = index.docs.map((d) => (d ? [d.path, d.title, d.hash, d.tags, d.terms.lens] : null));
  const offsets = new Uint32Array(index.docs.length + 1);
  index.docs.forEach((d, i) => (offsets[i + 1] = offsets[i] + (d?.terms.ids.length ?? 0)));
  // Each page's own arrays as chunks: a table is never edited (a change replaces it), and
  // one copy of them all cost 2 × 105 MB at the peak of a save at 100k pages.
  const ids: Uint8Array[] = [];
  const tf: Uint8Array[] = [];
  const more: number[] = [];
  index.docs.forEach((d, i) => {
    if (!d) return;
    ids.push(bytes(d.terms.ids));
    tf.push(d.terms.tf);
    for (const [k, count] of d.terms.more ?? []) more.push(i, k, count);
  });
  return {
    docs: jsonSection(rows),
    terms: jsonSection(index.stats.toJSON()),
    offsets: bytes(offsets),
    ids,
    tf,
    'tf-more': bytes(Uint32Array.from(more)),
    ...index.postings.sections(),
  };
}

/** Throws when a section is missing or inconsistent; the caller rebuilds. `bodies` is the store saved with it. */
export function restoreIndex(sections: LoadedSections, bodies: BodyStore): SearchIndex {
  const rows = parseSection<DocRow[]>(sections.docs);
  const stats = TermStats.fromJSON(parseSection(sections.terms));
  const offsets = typed(Uint32Array, sections.offsets);
  const ids = typed(Uint32Array, sections.ids);
  const tf = typed(Uint8Array, sections.tf);
  const more = typed(Uint32Array, sections['tf-more']);
  if (offsets.length !== rows.length + 1 || tf.length !== ids.length * FIELD_COUNT) throw new Error('inconsistent term tables');
  const docs = rows.map((row, id): IndexedDoc | undefined => {
    if (!row) return undefined;
    const [path, title, hash, tags, lens] = row;
    const terms: DocTerms = {
      ids: ids.subarray(offsets[id], offsets[id + 1]),
      tf: tf.subarray(offsets[id] * FIELD_COUNT, offsets[id + 1] * FIELD_COUNT),
      lens,
    };
    stats.restore(terms);
    return { id, path, title, hash, tags, terms };
  });
  for (let i = 0; i < more.length; i += 3) {
    const terms = docs[more[i]]?.terms;
    if (!terms || terms.tf[more[i + 1]] !== TF_MORE) throw new Error('inconsistent term tables');
    (terms.more ??= new Map()).set(more[i + 1], more[i + 2]);
  }
  if (bodies.size > rows.length) throw new Error('inconsistent bodies');
  return new SearchIndex(docs, stats, fromSections(sections), bodies);
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
