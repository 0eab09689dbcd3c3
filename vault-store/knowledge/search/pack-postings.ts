import { toEnd } from '../../slices.js';
import { partAt } from './bm25.js';
import { FIELD_COUNT, TermCursor, type DocTerms } from './term-table.js';

/**
 * A term's pages in a field are listed by how often the field uses the term, in slots:
 * slot 0 for SLOTS times or more, slot SLOTS − 1 for once. So a list gives the pages that
 * use a term most first, and a query reads each page's exact count off the postings
 * without touching the page's own term table: a slot's count, or in slot 0 the count
 * written after each page.
 */
export const SLOTS = 9;

export function slotOf(count: number): number {
  return count >= SLOTS ? 0 : SLOTS - count;
}

/** The count slots 1 and up stand for. */
export function countOfSlot(slot: number): number {
  return SLOTS - slot;
}

/**
 * Postings packed in two typed arrays, never changed once made: list `k` (term id ×
 * FIELD_COUNT + field) is `bytes[starts[k]]` up to `bytes[starts[k + 1]]`. A list is a run
 * per non-empty slot, best slot first: a varint `n · 16 + slot`, then the run's `n` page
 * ids ascending, each as a varint of its gap to the one before (minus one), in slot 0
 * followed by the page's count as a varint. 2.75 M postings of 10k pages take ~5 MB;
 * FlexSearch's arrays and delete register took 63–75 MB. Slot 0 held no count until
 * format 10: a common word's pages then all had the same bound, and a phrase of two of
 * them scored ~55k pages from their term tables to rank them (0.3 s at 100k pages).
 */
export interface PackedPostings {
  starts: Uint32Array;
  bytes: Uint8Array;
  /** Each field's average length when packed: what the tails' bounds were taken at (see `Bm25.since`). */
  averages: Float64Array;
  /** As restored: 1 for each page whose postings in it are still its own (see `Postings.snapshot`); none: every page's are. */
  alive?: Uint8Array;
}

export const EMPTY_POSTINGS: PackedPostings = {
  starts: new Uint32Array(1),
  bytes: new Uint8Array(0),
  averages: new Float64Array(FIELD_COUNT).fill(1),
};

/**
 * A list of `splitting.from` postings or more is written as a head, its HEAD_SHARE of postings
 * adding most (`Bm25.part` at the pack's averages), then a tail: a query may read the head
 * alone and bound what the tail adds to any page without reading it. The list starts with
 * a marker, a varint `runs · 16 + MARKER` (the head's runs; slots use 0–8), then the tail's
 * bound, a varint q: no tail posting added more than q / QUANTUM of the field's saturation.
 * Two common words' body lists at 100k pages are ~98k postings each, and a phrase of them
 * wants the ten best pages holding both: read whole, ~200k postings, it was the p99.
 */
export const MARKER = 15;
export const QUANTUM = 2 ** 20;
/** Read at each pack; a test lowers it (and puts it back) to split the lists of a vault of a few thousand pages. */
export const splitting = { from: 24_576 };
const HEAD_SHARE = 1 / 16;
/** Parts are placed in this many buckets between 0 and saturation to find the head's cut in one pass. */
const BUCKETS = 1024;

/** The persisted form: the two arrays' bytes, as they are, and which pages' postings in them are alive. */
export interface PostingsSections {
  'postings-starts': Uint8Array;
  postings: Uint8Array;
  'postings-alive': Uint8Array;
  'postings-averages': Uint8Array;
}

export function toSections({ starts, bytes, averages }: PackedPostings, alive: Uint8Array): PostingsSections {
  return {
    'postings-starts': new Uint8Array(starts.buffer, starts.byteOffset, starts.byteLength),
    postings: bytes,
    'postings-alive': alive,
    'postings-averages': new Uint8Array(averages.buffer, averages.byteOffset, averages.byteLength),
  };
}

/**
 * The packed postings persisted as `sections`, used in place where a section has a buffer
 * of its own (else copied: a view would keep a whole file's buffer alive). Throws on
 * arrays that do not add up; the caller then rebuilds.
 */
export function fromSections(sections: Readonly<Record<string, Uint8Array | undefined>>): PackedPostings {
  const starts = sections['postings-starts'];
  const bytes = sections.postings;
  const alive = sections['postings-alive'];
  const averages = sections['postings-averages'];
  if (!starts || !bytes || !alive || starts.byteLength % 4 || averages?.byteLength !== 8 * FIELD_COUNT)
    throw new Error('inconsistent postings');
  const words = new Uint32Array(...ownBuffer(starts, 4));
  const last = words.length - 1;
  let ordered = words.length % FIELD_COUNT === 1 && words[0] === 0 && words[last] === bytes.byteLength;
  for (let k = 0; k < last && ordered; k++) ordered = words[k] <= words[k + 1];
  if (!ordered) throw new Error('inconsistent postings');
  const means = new Float64Array(new Uint8Array(averages).buffer);
  // A tail's bound is scaled by them (Bm25.since): one not above zero would void it.
  if (!means.every((mean) => mean > 0 && mean < Infinity)) throw new Error('inconsistent postings');
  return { starts: words, bytes: new Uint8Array(...ownBuffer(bytes, 1)), alive, averages: means };
}

/**
 * `section`'s buffer, offset and length in units of `size` bytes; copied unless it is a
 * whole buffer (by the constructor: a Node Buffer's `slice` is a view, not a copy).
 */
export function ownBuffer(section: Uint8Array, size: number): [ArrayBufferLike, number, number] {
  const own = section.byteOffset === 0 && section.byteLength === section.buffer.byteLength ? section : new Uint8Array(section);
  return [own.buffer, 0, own.byteLength / size];
}

type Tables = readonly ({ readonly terms: DocTerms } | undefined)[];

/**
 * Postings placed at a time. Placing them is a scatter (each page's terms go to lists all
 * over the index), which missed the caches once the scratch outgrew them: 30k pages
 * packed 4× slower than 10k. In blocks of terms it stays linear, and the scratch small.
 */
const BLOCK = 1 << 20;

/**
 * Packs the postings of every page in `tables` from their term tables: counts each list,
 * then per block of terms (`block` postings or one term's, if more) places each posting
 * and writes the block's lists. Nothing is allocated per posting.
 */
export function packPostings(tables: Tables, block = BLOCK): PackedPostings {
  return toEnd(packing(tables, block));
}

/**
 * `packPostings` one step at a time: a step is the counting of 1,024 pages or one block.
 * A save packs in steps between other work (see `Postings.snapshot`): whole, 10k pages
 * held the event loop for 0.2–0.4 s.
 */
export function* packing(tables: Tables, block = BLOCK): Generator<void, PackedPostings> {
  const cursor = new TermCursor();
  // ends[k + 1]: first the length of list k, then (summed) where it ends among all postings; grown as term ids show up.
  let ends = new Uint32Array(FIELD_COUNT + 1);
  let terms = 0;
  const lengths = new Uint32Array(tables.length * FIELD_COUNT);
  const averages = new Float64Array(FIELD_COUNT);
  let pages = 0;
  for (let id = 0; id < tables.length; id++) {
    const doc = tables[id];
    if (id % 1024 === 1023) yield;
    if (!doc) continue;
    pages += 1;
    // A restored page makes its table's object on each read.
    const table = doc.terms;
    for (let f = 0; f < FIELD_COUNT; f++) averages[f] += lengths[id * FIELD_COUNT + f] = table.lens[f];
    cursor.open(table);
    while (cursor.next()) {
      if (cursor.id >= terms) {
        terms = cursor.id + 1;
        if ((terms + 1) * FIELD_COUNT > ends.length) ends = grown(ends, (terms + 1) * FIELD_COUNT);
      }
      for (let f = 0; f < FIELD_COUNT; f++) if (cursor.tf[f] !== 0) ends[cursor.id * FIELD_COUNT + f + 1] += 1;
    }
  }
  for (let f = 0; f < FIELD_COUNT; f++) averages[f] = averages[f] / Math.max(1, pages) || 1;
  const keys = terms * FIELD_COUNT;
  ends = ends.slice(0, keys + 1);
  let largest = 0;
  for (let k = 0; k < keys; k++) {
    ends[k + 1] += ends[k];
    if (k % FIELD_COUNT === FIELD_COUNT - 1) largest = Math.max(largest, ends[k + 1] - ends[k + 1 - FIELD_COUNT]);
  }
  const size = Math.max(Math.min(block, ends[keys]), largest);
  const scratch = { pages: new Uint32Array(size), slots: new Uint8Array(size), counts: new Uint16Array(size), bins: new Uint16Array(0) };
  const impact = { lengths, averages, buckets: new Uint32Array(BUCKETS), tops: new Float64Array(BUCKETS) };
  const out = new VarintWriter(ends[keys] * 2 + 64);
  const splitFrom = splitting.from;
  const starts = new Uint32Array(keys + 1);
  // Per page, its first term not placed yet (byte offset, id before it): blocks go up by term id, as each table does.
  const cursors = { offsets: new Uint32Array(tables.length), ids: new Int32Array(tables.length).fill(-1), cursor };
  for (let first = 0; first < keys;) {
    yield;
    let last = first + FIELD_COUNT;
    while (last < keys && ends[last + FIELD_COUNT] - ends[first] <= size) last += FIELD_COUNT;
    place(tables, cursors, ends, first, last, scratch);
    for (let k = first; k < last; k++) {
      starts[k] = out.length;
      const [lo, hi] = [ends[k] - ends[first], ends[k + 1] - ends[first]];
      if (hi - lo >= splitFrom) out.split(scratch, lo, hi, k % FIELD_COUNT, impact);
      else out.list(scratch, lo, hi);
    }
    first = last;
  }
  starts[keys] = out.length;
  return { starts, bytes: out.bytes.slice(0, out.length), averages };
}

interface Block {
  /** Each list's page ids ascending, lists one after another. */
  pages: Uint32Array;
  slots: Uint8Array;
  /** Counts are at most TF_MAX (term-table.ts): 16 bits. */
  counts: Uint16Array;
  /** Per posting of a list being split, the bucket of what it adds (grown as needed). */
  bins: Uint16Array;
}

/** What splitting a list reads: each page's field lengths and the fields' averages; a histogram's scratch (postings and best part per bucket). */
interface Impact {
  lengths: Uint32Array;
  averages: Float64Array;
  buckets: Uint32Array;
  tops: Float64Array;
}

interface Cursors {
  offsets: Uint32Array;
  ids: Int32Array;
  cursor: TermCursor;
}

/** Places the postings of lists `first` up to `last` (whole terms) in `block`. */
function place(tables: Tables, cursors: Cursors, ends: Uint32Array, first: number, last: number, block: Block): void {
  const next = ends.slice(first, last);
  const base = ends[first];
  const end = last / FIELD_COUNT;
  const { offsets, ids, cursor } = cursors;
  tables.forEach((doc, id) => {
    if (!doc) return;
    cursor.open(doc.terms);
    if (offsets[id] > 0) cursor.seek(offsets[id], ids[id]);
    for (;;) {
      offsets[id] = cursor.offset;
      ids[id] = cursor.id;
      if (!cursor.next() || cursor.id >= end) break;
      for (let f = 0; f < FIELD_COUNT; f++) {
        const count = cursor.tf[f];
        if (count === 0) continue;
        const at = next[cursor.id * FIELD_COUNT + f - first]++ - base;
        block.pages[at] = id;
        block.slots[at] = slotOf(count);
        block.counts[at] = count;
      }
    }
  });
}

function grown(array: Uint32Array, size: number): Uint32Array<ArrayBuffer> {
  const next = new Uint32Array(Math.max(size, array.length * 2));
  next.set(array);
  return next;
}

/** Values below 2³², seven bits a byte, low bits first. */
class VarintWriter {
  length = 0;
  bytes: Uint8Array;
  private readonly sizes = new Uint32Array(SLOTS);

  constructor(size: number) {
    this.bytes = new Uint8Array(size);
  }

  /** Writes the list at `lo` up to `hi` in `block`: its runs, best slot first. */
  list(block: Block, lo: number, hi: number): void {
    if (lo === hi) return;
    this.runs(block, lo, hi);
  }

  /**
   * Writes the list at `lo` up to `hi` in `block`, of field `f`, as a head and a tail (see
   * MARKER). The head's cut is a bucket of parts, so the head holds HEAD_SHARE of the
   * postings or a little more; the tail's bound is its best part, rounded up.
   */
  split(block: Block, lo: number, hi: number, f: number, { lengths, averages, buckets, tops }: Impact): void {
    const { pages, slots, counts } = block;
    const n = hi - lo;
    if (block.bins.length < n) block.bins = new Uint16Array(Math.max(n, block.bins.length * 2));
    const { bins } = block;
    const top = partAt(f, Infinity, 0, averages[f]);
    buckets.fill(0);
    tops.fill(0);
    for (let p = 0; p < n; p++) {
      const part = partAt(f, counts[lo + p], lengths[pages[lo + p] * FIELD_COUNT + f], averages[f]);
      const bin = (bins[p] = Math.min(BUCKETS - 1, Math.floor((part / top) * BUCKETS)));
      buckets[bin] += 1;
      tops[bin] = Math.max(tops[bin], part);
    }
    let cut = BUCKETS;
    for (let held = 0; cut > 0 && held < n * HEAD_SHARE;) held += buckets[--cut];
    let tail = 0;
    for (let bin = 0; bin < cut; bin++) tail = Math.max(tail, tops[bin]);
    // The head's postings first, then the tail's, each in the order they were (ids ascending).
    const [was, slotted, counted] = [pages.slice(lo, hi), slots.slice(lo, hi), counts.slice(lo, hi)];
    let at = lo;
    let mid = lo;
    for (const head of [true, false]) {
      for (let p = 0; p < n; p++) {
        if (bins[p] >= cut !== head) continue;
        pages[at] = was[p];
        slots[at] = slotted[p];
        counts[at++] = counted[p];
      }
      if (head) mid = at;
    }
    this.reserve(10);
    this.write(this.sized(slots, lo, mid) * 16 + MARKER);
    this.write(Math.ceil((tail / top) * QUANTUM) + 1);
    this.runs(block, lo, mid);
    this.runs(block, mid, hi);
  }

  /** Counts the postings at `lo` up to `hi` per slot (`sizes`); returns how many slots hold some. */
  private sized(slots: Uint8Array, lo: number, hi: number): number {
    const { sizes } = this;
    sizes.fill(0);
    for (let p = lo; p < hi; p++) sizes[slots[p]] += 1;
    return sizes.reduce((runs, size) => runs + (size > 0 ? 1 : 0), 0);
  }

  /** Writes the postings at `lo` up to `hi` in `block` as runs, best slot first. */
  private runs({ pages, slots, counts }: Block, lo: number, hi: number): void {
    const { sizes } = this;
    this.sized(slots, lo, hi);
    this.reserve(5 * (hi - lo + SLOTS) + 3 * sizes[0]);
    for (let slot = 0; slot < SLOTS; slot++) {
      if (sizes[slot] === 0) continue;
      this.write(sizes[slot] * 16 + slot);
      let previous = -1;
      for (let p = lo; p < hi; p++) {
        if (slots[p] !== slot) continue;
        this.write(pages[p] - previous - 1);
        if (slot === 0) this.write(counts[p]);
        previous = pages[p];
      }
    }
  }

  /** Room for `size` more bytes; called per list, so `write` need not check. */
  private reserve(size: number): void {
    if (this.length + size <= this.bytes.length) return;
    const grown = new Uint8Array(Math.max(this.length + size, this.bytes.length * 2));
    grown.set(this.bytes.subarray(0, this.length));
    this.bytes = grown;
  }

  write(value: number): void {
    while (value >= 0x80) {
      this.bytes[this.length++] = (value & 0x7f) | 0x80;
      value >>>= 7;
    }
    this.bytes[this.length++] = value;
  }
}
