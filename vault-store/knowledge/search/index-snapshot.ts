import { jsonSection, parseSection, type Sections } from '../persist.js';
import { FlexIndex } from './flex-index.js';
import { SearchIndex, type IndexedDoc } from './search-index.js';
import { FIELD_COUNT, TermStats } from './term-stats.js';

type DocRow = [path: string, title: string, hash: string, tags: string[], body: string, lens: number[]] | null;

const FLEX = 'flex/';

/** The search index as persisted sections: documents, vocabulary, term tables, FlexSearch's export. */
export async function snapshotIndex(index: SearchIndex): Promise<Sections> {
  const rows: DocRow[] = index.docs.map((d) => (d ? [d.path, d.title, d.hash, d.tags, d.body, d.terms.lens] : null));
  const offsets = new Uint32Array(index.docs.length + 1);
  index.docs.forEach((d, i) => (offsets[i + 1] = offsets[i] + (d?.terms.ids.length ?? 0)));
  const ids = new Uint32Array(offsets[index.docs.length]);
  const tf = new Uint16Array(ids.length * FIELD_COUNT);
  index.docs.forEach((d, i) => {
    if (!d) return;
    ids.set(d.terms.ids, offsets[i]);
    tf.set(d.terms.tf, offsets[i] * FIELD_COUNT);
  });
  const sections: Sections = {
    docs: jsonSection(rows),
    terms: jsonSection(index.stats.toJSON()),
    offsets: bytes(offsets),
    ids: bytes(ids),
    tf: bytes(tf),
  };
  for (const [key, data] of await index.flex.export()) sections[FLEX + key] = Buffer.from(data);
  return sections;
}

/** Throws when a section is missing or inconsistent; the caller rebuilds. */
export function restoreIndex(sections: Sections): SearchIndex {
  const rows = parseSection<DocRow[]>(sections.docs);
  const stats = TermStats.fromJSON(parseSection(sections.terms));
  const offsets = typed(Uint32Array, sections.offsets);
  const ids = typed(Uint32Array, sections.ids);
  const tf = typed(Uint16Array, sections.tf);
  if (offsets.length !== rows.length + 1 || tf.length !== ids.length * FIELD_COUNT) throw new Error('inconsistent term tables');
  const docs = rows.map((row, id): IndexedDoc | undefined => {
    if (!row) return undefined;
    const [path, title, hash, tags, body, lens] = row;
    const terms = { ids: ids.subarray(offsets[id], offsets[id + 1]), tf: tf.subarray(offsets[id] * FIELD_COUNT, offsets[id + 1] * FIELD_COUNT), lens };
    stats.restore(terms);
    return { id, path, title, hash, tags, body, terms };
  });
  const flex = FlexIndex.import(Object.entries(sections).filter(([k]) => k.startsWith(FLEX)).map(([k, v]) => [k.slice(FLEX.length), Buffer.from(v).toString('utf8')]));
  return new SearchIndex(docs, stats, flex);
}

function bytes(view: ArrayBufferView): Uint8Array {
  return new Uint8Array(view.buffer, view.byteOffset, view.byteLength);
}

/** Copies into a fresh, aligned buffer: sections sit at arbitrary offsets in the file. */
function typed<T extends Uint32Array | Uint16Array>(Kind: { new (buffer: ArrayBuffer): T; BYTES_PER_ELEMENT: number }, section: Uint8Array | undefined): T {
  if (!section || section.byteLength % Kind.BYTES_PER_ELEMENT) throw new Error('bad term table');
  const copy = new Uint8Array(section.byteLength);
  copy.set(section);
  return new Kind(copy.buffer);
}
