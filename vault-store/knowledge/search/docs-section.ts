import type { SectionStream } from '../section-write.js';
import { ownBuffer } from './pack-postings.js';
import { FIELD_COUNT } from './term-table.js';

/** What the `docs` section holds of a page besides its term table. */
export interface DocFields {
  path: string;
  title: string;
  hash: string;
  tags: string[];
}

/** Words of the shape per page: path, title and hash lengths, tag count (HOLE: no page). */
const SHAPE = 4;
const HOLE = 0xffffffff;
const HEADER = 2;
/** Shared by every page without tags (most): frozen, so nobody adds to it. */
const NO_TAGS = Object.freeze([]) as unknown as string[];

/**
 * The documents as one binary section, read without a JSON parse (0.28 s at 100k pages) or
 * an array per page: 32-bit words — the page count, the count of tag lengths, per page the
 * lengths of its path, title and hash (in UTF-16 units) and its tag count, the tag lengths,
 * then FIELD_COUNT field lengths per page (the index's `lengths` as they are) — followed by
 * every string in UTF-8, one after another. Made as it is written: the words, then the text
 * a piece at a time (all of it at once was 18 MB at 100k pages, and the list of its strings).
 */
export async function* docsSection(docs: readonly (DocFields | undefined)[], lengths: Uint32Array): SectionStream {
  const shape = new Uint32Array(HEADER + SHAPE * docs.length);
  let tags = 0;
  for (let id = 0; id < docs.length; id++) {
    const doc = docs[id];
    const at = HEADER + SHAPE * id;
    if (!doc) {
      shape[at + 3] = HOLE;
      continue;
    }
    shape[at] = doc.path.length;
    shape[at + 1] = doc.title.length;
    shape[at + 2] = doc.hash.length;
    shape[at + 3] = doc.tags.length;
    tags += doc.tags.length;
  }
  shape[0] = docs.length;
  shape[1] = tags;
  yield bytesOf(shape);
  const tagLengths = new Uint32Array(tags);
  let tag = 0;
  for (const doc of docs) if (doc) for (let t = 0; t < doc.tags.length; t++) tagLengths[tag++] = doc.tags[t].length;
  yield bytesOf(tagLengths);
  const lens = new Uint32Array(docs.length * FIELD_COUNT);
  lens.set(lengths.subarray(0, lens.length));
  yield bytesOf(lens);
  yield* utf8Pieces(docs);
}

/**
 * Strings per piece of the text: a piece stays small enough for V8's young generation
 * (~45 KB of seed-42 text), so it dies there instead of growing the old one.
 */
const TEXT_PIECE = 1024;

/** The pages' strings joined as UTF-8, in pieces of about TEXT_PIECE strings (a string never spans two pieces). */
function* utf8Pieces(docs: readonly (DocFields | undefined)[]): Generator<Uint8Array> {
  let texts: string[] = [];
  for (const doc of docs) {
    if (!doc) continue;
    texts.push(doc.path, doc.title, doc.hash, ...doc.tags);
    if (texts.length < TEXT_PIECE) continue;
    yield Buffer.from(texts.join(''));
    texts = [];
  }
  if (texts.length > 0) yield Buffer.from(texts.join(''));
}

/**
 * The documents back, each made by `make` (no page in between: 100k objects more to copy at
 * every young-generation GC was a third of the decode), holes where no page was, and their
 * field lengths (a view of the section). The strings are cut from one decoded string: they
 * share it, which holds no more than they do. Throws on a section that does not add up;
 * the caller rebuilds.
 */
export function readDocsSection<T>(
  section: Uint8Array,
  make: (id: number, fields: DocFields) => T,
): { docs: (T | undefined)[]; lengths: Uint32Array } {
  if (section.byteLength < HEADER * 4) throw new Error('bad docs section');
  const [buffer] = ownBuffer(section, 1);
  const words = (at: number, count: number) => {
    if ((at + count) * 4 > section.byteLength) throw new Error('bad docs section');
    return new Uint32Array(buffer, at * 4, count);
  };
  const [count, tagCount] = words(0, HEADER);
  const shape = words(HEADER, SHAPE * count);
  const tagLengths = words(HEADER + shape.length, tagCount);
  const lengths = words(HEADER + shape.length + tagCount, count * FIELD_COUNT);
  const textAt = (HEADER + shape.length + tagCount + lengths.length) * 4;
  const text = Buffer.from(buffer, textAt, section.byteLength - textAt).toString('utf8');
  const docs = new Array<T | undefined>(count).fill(undefined);
  const fields: DocFields = { path: '', title: '', hash: '', tags: NO_TAGS };
  let at = 0;
  let tag = 0;
  for (let id = 0; id < count; id++) {
    const s = SHAPE * id;
    if (shape[s + 3] === HOLE) continue;
    fields.path = text.slice(at, (at += shape[s]));
    fields.title = text.slice(at, (at += shape[s + 1]));
    fields.hash = text.slice(at, (at += shape[s + 2]));
    fields.tags = NO_TAGS;
    if (shape[s + 3] > 0) {
      fields.tags = new Array<string>(shape[s + 3]);
      for (let t = 0; t < fields.tags.length; t++) fields.tags[t] = text.slice(at, (at += tagLengths[tag++]));
    }
    docs[id] = make(id, fields);
  }
  if (at !== text.length || tag !== tagCount) throw new Error('bad docs section');
  return { docs, lengths };
}

function bytesOf(view: Uint32Array): Uint8Array {
  return new Uint8Array(view.buffer, view.byteOffset, view.byteLength);
}
