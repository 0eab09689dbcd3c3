import { EMPTY_POSTINGS, MARKER, QUANTUM, SLOTS, type PackedPostings } from './pack-postings.js';

/** Per page: its postings are in the packed base (and alive), in the overlay, or wait to be filed. */
export const BASE = 1;
export const FILED = 2;
export const PENDING = 4;
/**
 * Overlay entries are `(slot · SPAN + id) · COUNTS + count`: numeric order is the lists'
 * order (a page is once in a list). Ids stay below SPAN, counts below COUNTS (TF_MAX).
 */
export const SPAN = 2 ** 28;
export const COUNTS = 2 ** 16;
/**
 * Reads one list: `open`, then `next()` until false; `id`, `slot` and `count` are the
 * current posting's. The packed base's postings come in the list's order (best slot first,
 * ids ascending; in a split list the head's runs, then the tail's), dead ones skipped, then
 * the overlay's entries given to `open`. One small class read in the caller's loop, so that
 * the engine inlines it there.
 */
export class PostingReader {
  id = -1;
  slot = 0;
  count = 0;
  private bytes: Uint8Array = EMPTY_POSTINGS.bytes;
  private state: Uint8Array = EMPTY_POSTINGS.bytes;
  private at = 0;
  private end = 0;
  /** Postings left in the current run. */
  private left = 0;
  /** Runs left to read (-1: all): a split list's head runs, when only the head is read. */
  private runs = -1;
  private head = false;
  private extra: readonly number[] | undefined;
  private e = 0;

  /** `head`: of a split list (see MARKER), its head alone (and the overlay's entries). */
  open({ starts, bytes }: PackedPostings, key: number, state: Uint8Array, extra?: readonly number[], head = false): this {
    const listed = key + 1 < starts.length;
    this.runs = -1;
    this.head = head;
    this.bytes = bytes;
    this.state = state;
    this.at = listed ? starts[key] : 0;
    this.end = listed ? starts[key + 1] : 0;
    this.left = 0;
    this.extra = extra;
    this.e = 0;
    return this;
  }

  next(): boolean {
    const { bytes } = this;
    for (;;) {
      if (this.left === 0) {
        if (this.at >= this.end || this.runs === 0) return this.nextExtra();
        let b = bytes[this.at++];
        let head = b & 0x7f;
        for (let scale = 0x80; b & 0x80; scale *= 0x80) head += ((b = bytes[this.at++]) & 0x7f) * scale;
        if ((head & 15) === MARKER) {
          this.at = this.marked(head);
          continue;
        }
        this.runs -= 1;
        this.slot = head & 15;
        this.left = (head - this.slot) / 16;
        this.id = -1;
      }
      this.left -= 1;
      let b = bytes[this.at++];
      let gap = b & 0x7f;
      for (let scale = 0x80; b & 0x80; scale *= 0x80) gap += ((b = bytes[this.at++]) & 0x7f) * scale;
      this.id += gap + 1;
      if (this.slot === 0) {
        b = bytes[this.at++];
        let count = b & 0x7f;
        for (let scale = 0x80; b & 0x80; scale *= 0x80) count += ((b = bytes[this.at++]) & 0x7f) * scale;
        this.count = count;
      } else this.count = SLOTS - this.slot;
      if (this.state[this.id] & BASE) return true;
    }
  }

  /**
   * Decodes the list just opened into `ids` and `counts` (room for every page) and returns
   * how many postings it held, in `next()`'s order. The same decoding in locals, not
   * fields: reading a common word's 100k postings one `next()` at a time cost ~30 ns a
   * posting, here ~9.
   */
  drain(ids: Int32Array, counts: Int32Array): number {
    const { bytes, state, end } = this;
    let at = this.at;
    let n = 0;
    // Whole runs only: `open` was the last call, so no run is begun.
    while (at < end && this.runs !== 0) {
      let b = bytes[at++];
      let head = b & 0x7f;
      for (let scale = 0x80; b & 0x80; scale *= 0x80) head += ((b = bytes[at++]) & 0x7f) * scale;
      if ((head & 15) === MARKER) {
        at = this.marked(head, at);
        continue;
      }
      this.runs -= 1;
      const slot = head & 15;
      const fixed = SLOTS - slot;
      let id = -1;
      for (let left = (head - slot) / 16; left > 0; left--) {
        b = bytes[at++];
        let gap = b & 0x7f;
        for (let scale = 0x80; b & 0x80; scale *= 0x80) gap += ((b = bytes[at++]) & 0x7f) * scale;
        id += gap + 1;
        let count = fixed;
        if (slot === 0) {
          b = bytes[at++];
          count = b & 0x7f;
          for (let scale = 0x80; b & 0x80; scale *= 0x80) count += ((b = bytes[at++]) & 0x7f) * scale;
        }
        if (state[id] & BASE) {
          ids[n] = id;
          counts[n++] = count;
        }
      }
    }
    this.at = at;
    while (this.nextExtra()) {
      ids[n] = this.id;
      counts[n++] = this.count;
    }
    return n;
  }

  /** Past a split list's marker `head` (its bound after it, at `at`): where its runs begin; in head mode, only the head's are read. */
  private marked(head: number, at = this.at): number {
    if (this.head) this.runs = (head - MARKER) / 16;
    while (this.bytes[at++] & 0x80);
    return at;
  }

  private nextExtra(): boolean {
    const { extra } = this;
    if (!extra || this.e >= extra.length) return false;
    const entry = extra[this.e++];
    const key = Math.floor(entry / COUNTS);
    this.id = key % SPAN;
    this.slot = Math.floor(key / SPAN);
    this.count = entry % COUNTS;
    return true;
  }
}

/**
 * The tail's bound of list `key` if it is split (see MARKER): the most a posting of its tail
 * added at the pack's averages, as a share of the field's saturation; 0 if it is not split.
 */
export function tailShare({ starts, bytes }: PackedPostings, key: number): number {
  if (key + 1 >= starts.length || starts[key + 1] === starts[key]) return 0;
  const [head, at] = varintAt(bytes, starts[key]);
  return (head & 15) === MARKER ? varintAt(bytes, at)[0] / QUANTUM : 0;
}

/** The varint at `at` (the lists' own, least significant group first) and where the next begins: off the hot loops, which inline it. */
function varintAt(bytes: Uint8Array, at: number): [number, number] {
  let b = bytes[at++];
  let value = b & 0x7f;
  for (let scale = 0x80; b & 0x80; scale *= 0x80) value += ((b = bytes[at++]) & 0x7f) * scale;
  return [value, at];
}
