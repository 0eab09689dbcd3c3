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
 * every string in UTF-8, one after another.
 */
export function docsSection(docs: readonly (DocFields | undefined)[], lengths: Uint32Array): Uint8Array[] {
  const shape = new Uint32Array(HEADER + SHAPE * docs.length);
  const tagLengths: number[] = [];
  const text: string[] = [];
  shape[0] = docs.length;
  for (let id = 0; id < docs.length; id++) {
    const doc = docs[id];
    const at = HEADER + SHAPE * id;
    if (!doc) {
      shape[at + 3] = HOLE;
      continue;
    }
    [shape[at], shape[at + 1], shape[at + 2], shape[at + 3]] = [doc.path.length, doc.title.length, doc.hash.length, doc.tags.length];
    text.push(doc.path, doc.title, doc.hash, ...doc.tags);
    for (const tag of doc.tags) tagLengths.push(tag.length);
  }
  shape[1] = tagLengths.length;
  const lens = new Uint32Array(docs.length * FIELD_COUNT);
  lens.set(lengths.subarray(0, lens.length));
  return [bytesOf(shape), bytesOf(Uint32Array.from(tagLengths)), bytesOf(lens), ...utf8Pieces(text)];
}

/** Strings per piece of the text: one string of them all was 18–36 MB at 100k pages, beside its bytes. */
const TEXT_PIECE = 4096;

/** `texts` joined as UTF-8, in pieces of TEXT_PIECE strings (a string never spans two pieces). */
function utf8Pieces(texts: readonly string[]): Uint8Array[] {
  const pieces: Uint8Array[] = [];
  for (let i = 0; i < texts.length; i += TEXT_PIECE) pieces.push(Buffer.from(texts.slice(i, i + TEXT_PIECE).join('')));
  return pieces;
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
