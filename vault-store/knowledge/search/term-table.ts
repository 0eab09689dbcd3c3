/**
 * A page's term table, packed: what BM25 scores it from, what its postings are filed from.
 * Per distinct term, ids ascending: the gap from the previous id as a varint, then a head
 * byte (low four bits: the fields holding the term; high four: the first such field's
 * count when 1–15, else 0 and the count follows as a varint), then the other fields'
 * counts as varints. The table starts with its number of terms. A term is ~2.7 bytes
 * (seed-42 vaults) where four-byte ids and a byte per field took 8: at 10k pages the
 * tables went from 21.5 to ~7 MB, and their share of a steady server's RSS with them.
 */

export const FIELD_COUNT = 4;
/** Counts are kept up to this (a rebuild caps them the same way, so ranking never drifts). */
export const TF_MAX = 0xffff;

export interface DocTerms {
  /** The packed table (see above): a view into a slab or a restored section, never written to. */
  readonly bytes: Uint8Array;
  /** Terms per field: the field lengths BM25 normalises by. */
  readonly lens: number[];
}

/** Reads a table term by term: `open`, then `next()` until false; `id` and `tf` are the current term's. */
export class TermCursor {
  id = -1;
  /** The current term's count per field. */
  readonly tf = new Uint32Array(FIELD_COUNT);
  private bytes: Uint8Array = EMPTY;
  private at = 0;

  open(doc: DocTerms): this {
    this.bytes = doc.bytes;
    this.at = 0;
    this.id = -1;
    this.varint();
    return this;
  }

  /** Where the cursor is, to `seek` back to: the byte offset and the id before it. */
  get offset(): number {
    return this.at;
  }

  /** Goes back to a place `offset` gave, with the id of the term read last there. */
  seek(offset: number, id: number): void {
    this.at = offset;
    this.id = id;
  }

  next(): boolean {
    if (this.at >= this.bytes.length) return false;
    this.id += this.varint() + 1;
    this.counts();
    return true;
  }

  /**
   * Moves to the first term at or past `id`, decoding only that one's counts; false when the
   * table ends first. Skipping a term reads its bytes, not its counts: scoring a page from its
   * table looks up a few terms among hundreds.
   */
  reach(id: number): boolean {
    const { bytes } = this;
    let at = this.at;
    let current = this.id;
    while (at < bytes.length) {
      let b = bytes[at++];
      let gap = b & 0x7f;
      for (let scale = 0x80; b & 0x80; scale *= 0x80) gap += ((b = bytes[at++]) & 0x7f) * scale;
      current += gap + 1;
      if (current >= id) {
        this.at = at;
        this.id = current;
        this.counts();
        return true;
      }
      const head = bytes[at++];
      // A varint per field held but the first, and the first too when its count is not in the head.
      let varints = BITS_SET[head & 15] - (head >> 4 ? 1 : 0);
      while (varints > 0) if ((bytes[at++] & 0x80) === 0) varints -= 1;
    }
    this.at = at;
    this.id = current;
    return false;
  }

  /** Reads the counts of the term whose id was just read. */
  private counts(): void {
    const head = this.bytes[this.at++];
    let first = head >> 4;
    for (let f = 0; f < FIELD_COUNT; f++) {
      if ((head & (1 << f)) === 0) {
        this.tf[f] = 0;
      } else if (first !== 0) {
        this.tf[f] = first;
        first = 0;
      } else {
        this.tf[f] = this.varint();
      }
    }
  }

  /** Moves to term `id`; false when the table lacks it (the cursor is then past where it would be). */
  find(id: number): boolean {
    return this.reach(id) && this.id === id;
  }

  private varint(): number {
    const { bytes } = this;
    let b = bytes[this.at++];
    let value = b & 0x7f;
    for (let scale = 0x80; b & 0x80; scale *= 0x80) value += ((b = bytes[this.at++]) & 0x7f) * scale;
    return value;
  }
}

const EMPTY = new Uint8Array(0);
/** Bits set in each 4-bit field mask. */
const BITS_SET = Uint8Array.from({ length: 16 }, (_, mask) => (mask & 1) + ((mask >> 1) & 1) + ((mask >> 2) & 1) + ((mask >> 3) & 1));

/** Number of terms in a page's table. */
export function termCount(doc: DocTerms): number {
  const { bytes } = doc;
  let b = bytes[0];
  let value = b & 0x7f;
  for (let at = 1, scale = 0x80; b & 0x80; scale *= 0x80) value += ((b = bytes[at++]) & 0x7f) * scale;
  return value;
}

/** Writes tables into a scratch buffer, one at a time: `start`, `term` per term ascending, then `take`. */
export class TableWriter {
  private bytes = new Uint8Array(4096);
  private length = 0;
  private previous = -1;

  start(terms: number): void {
    this.length = 0;
    this.previous = -1;
    this.write(terms);
  }

  /** Term `id`, with `counts[offset + f]` its count in field f (at least one not 0). */
  term(id: number, counts: ArrayLike<number>, offset: number): void {
    if (this.length + 5 + 5 * FIELD_COUNT + 1 > this.bytes.length) {
      const grown = new Uint8Array(this.bytes.length * 2);
      grown.set(this.bytes);
      this.bytes = grown;
    }
    this.write(id - this.previous - 1);
    this.previous = id;
    let mask = 0;
    let first = -1;
    for (let f = 0; f < FIELD_COUNT; f++) {
      if (counts[offset + f] === 0) continue;
      mask |= 1 << f;
      if (first < 0) first = f;
    }
    const lead = Math.min(counts[offset + first], TF_MAX);
    this.bytes[this.length++] = mask | (lead <= 15 ? lead << 4 : 0);
    if (lead > 15) this.write(lead);
    for (let f = first + 1; f < FIELD_COUNT; f++) if (counts[offset + f] !== 0) this.write(Math.min(counts[offset + f], TF_MAX));
  }

  /** The table written since `start`, copied into `slab`. */
  take(slab: TableSlab): Uint8Array {
    return slab.copy(this.bytes, this.length);
  }

  private write(value: number): void {
    while (value >= 0x80) {
      this.bytes[this.length++] = (value & 0x7f) | 0x80;
      value >>>= 7;
    }
    this.bytes[this.length++] = value;
  }
}

/** Tables at most this big share a chunk; a bigger one gets an array of its own. */
const CHUNK = 256 * 1024;

/**
 * Where tables live: views into chunks of 256 KB, filled in order and never written again,
 * so a table a save still holds stays as it was. A typed array per page cost ~250 bytes of
 * headers and a malloc'd block each, whose holes the allocator kept after a build.
 */
export class TableSlab {
  private chunk = new Uint8Array(0);
  private used = 0;
  /** Bytes of chunks handed out since the last `reset`. */
  allocated = 0;

  copy(source: Uint8Array, length: number): Uint8Array {
    if (length > CHUNK / 4) {
      this.allocated += length;
      return source.slice(0, length);
    }
    if (this.used + length > this.chunk.length) {
      this.chunk = new Uint8Array(CHUNK);
      this.used = 0;
      this.allocated += CHUNK;
    }
    const view = this.chunk.subarray(this.used, this.used + length);
    view.set(source.subarray(0, length));
    this.used += length;
    return view;
  }

  /** Starts counting afresh, `held` bytes already held (a restored section the tables are views of). */
  reset(held: number): void {
    this.chunk = new Uint8Array(0);
    this.used = 0;
    this.allocated = held;
  }
}
