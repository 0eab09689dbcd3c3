import { inSlices } from '../../slices.js';
import { lowerBound } from '../../sorted.js';
import { EMPTY_POSTINGS, packing, packPostings, slotOf, toSections, type PackedPostings, type PostingsSections } from './pack-postings.js';
import type { Bm25 } from './bm25.js';
import { BASE, COUNTS, FILED, PENDING, PostingReader, SPAN, tailShare } from './posting-reader.js';
import { FIELD_COUNT, TermCursor, termCount, type DocTerms } from './term-table.js';

/** Called per posting with the page's count, best slot first, ids ascending within a slot; `false` stops the walk. */
export type Visit = (id: number, slot: number, count: number) => boolean | void;

type Tables = readonly ({ readonly terms: DocTerms } | undefined)[];

/**
 * The overlay is packed into the base once it would hold more postings than an eighth of
 * the base's bytes, within these bounds: packing takes ~30 ms per 10k pages, an overlay
 * entry ~10 bytes (so at most ~10 MB, however large the vault).
 */
const OVERLAY_MIN = 50_000;
const OVERLAY_MAX = 1_000_000;
/** Postings a step of a snapshot's packing places (~10 ms, a slice: see slices.ts). */
const SNAPSHOT_BLOCK = 1 << 17;

/**
 * Which pages hold each term, per field, by term id: the candidates of a search and what
 * its score bounds are read from. A packed base (see PackedPostings) that is never
 * changed, plus a small overlay for edits: the postings of pages added since, kept per
 * list as sorted numbers, and a flag per page whose base postings are no longer alive.
 * Added pages are filed when first read, so a build files them all at once; past a
 * threshold, and before a snapshot, everything is packed afresh from the pages' own term
 * tables (`tables`, the caller's documents by id, read and never changed here), which
 * are also what a removal reads: no per-page register of postings.
 */
export class Postings {
  private state = new Uint8Array(0);
  private readonly overlay = new Map<number, number[]>();
  private overlaid = 0;
  private pending: number[] = [];
  /** Pages whose base postings are dead: the base needs packing again before a snapshot. */
  private stale = 0;
  private readonly cursor = new TermCursor();

  /** `packed`: restored postings, holding every page of `tables` but those not `alive` in it; none: every page is filed anew. */
  constructor(
    private readonly tables: Tables,
    private packed: PackedPostings = EMPTY_POSTINGS,
  ) {
    const filed = packed !== EMPTY_POSTINGS;
    const { alive } = packed;
    if (alive && alive.length !== tables.length) throw new Error('inconsistent postings');
    tables.forEach((doc, id) => {
      if (!doc) return;
      if (filed && (!alive || alive[id])) return this.mark(id, BASE);
      if (filed) this.stale += 1;
      this.add(id);
    });
  }

  /** Files page `id`, whose term table is now `tables[id]`; it must hold no postings. */
  add(id: number): void {
    this.mark(id, PENDING);
    this.pending.push(id);
  }

  /** Takes page `id` out; `terms` is the term table it was filed with. */
  remove(id: number, terms: DocTerms): void {
    const state = this.state[id];
    if (state & BASE) this.stale += 1;
    if (state & FILED) this.unfile(id, terms);
    this.state[id] = 0;
  }

  /** Walks the postings of term `term` in field `field` (see Visit). */
  each(term: number, field: number, visit: Visit): void {
    this.settle();
    const key = term * FIELD_COUNT + field;
    const extra = this.overlay.get(key);
    const reader = new PostingReader().open(this.packed, key, this.state);
    let e = 0;
    while (reader.next()) {
      const { id, slot, count } = reader;
      if (extra) {
        const here = (slot * SPAN + id) * COUNTS;
        for (; e < extra.length && extra[e] < here; e++) if (visitEntry(extra[e], visit) === false) return;
      }
      if (visit(id, slot, count) === false) return;
    }
    if (extra) for (; e < extra.length; e++) if (visitEntry(extra[e], visit) === false) return;
  }

  /**
   * Opens `reader` on the live postings of term `term` in field `field`, the packed base's
   * and then the overlay's (so not in the list's order): the way to read a list whole with
   * no call per posting (a callback per posting was two thirds of a query's read). `head`:
   * of a split list, the head's postings alone (see `tail`) and the overlay's.
   */
  read(term: number, field: number, reader: PostingReader, head = false): PostingReader {
    this.settle();
    const key = term * FIELD_COUNT + field;
    return reader.open(this.packed, key, this.state, this.overlay.get(key), head);
  }

  /**
   * The most a posting in the tail of the list of `term` in `field` adds (`Bm25.part`, at
   * `bm25`'s averages), or 0 when the list has no tail: the packed base's long lists are
   * split (see MARKER in pack-postings.ts), and a page in a tail, dead or alive, adds at
   * most this. Overlay entries are never in a tail.
   */
  tail(term: number, field: number, bm25: Bm25): number {
    this.settle();
    const share = tailShare(this.packed, term * FIELD_COUNT + field);
    return share && bm25.since(field, share * bm25.part(field, Infinity, 0), this.packed.averages[field]);
  }

  /** Whether the list of `term` in `field` may hold a page (false: certainly none). */
  holds(term: number, field: number): boolean {
    this.settle();
    const key = term * FIELD_COUNT + field;
    const { starts } = this.packed;
    return (key + 1 < starts.length && starts[key + 1] > starts[key]) || this.overlay.has(key);
  }

  /** About what walking the list of `term` in `field` costs: its packed bytes and overlay entries. */
  weight(term: number, field: number): number {
    this.settle();
    const key = term * FIELD_COUNT + field;
    const { starts } = this.packed;
    return (key + 1 < starts.length ? starts[key + 1] - starts[key] : 0) + (this.overlay.get(key)?.length ?? 0);
  }

  /** Whether some page holding `term` in any field passes `test`; stops at the first. */
  some(term: number, test: (id: number) => boolean): boolean {
    let found = false;
    for (let f = 0; f < FIELD_COUNT && !found; f++) this.each(term, f, (id) => !(found = test(id)));
    return found;
  }

  /** Pages holding every one of `terms` in one field, best first by the first term, at most `limit` per field. */
  candidates(terms: number[], limit: number): number[] {
    const out = new Set<number>();
    if (terms.length === 0 || limit <= 0) return [];
    for (let f = 0; f < FIELD_COUNT; f++) {
      const others = terms.slice(1).map((term) => {
        const holders = new Set<number>();
        this.each(term, f, (id) => void holders.add(id));
        return holders;
      });
      let left = limit;
      this.each(terms[0], f, (id) => {
        if (!others.every((holders) => holders.has(id))) return true;
        out.add(id);
        return --left > 0;
      });
    }
    return [...out];
  }

  /**
   * The persisted form as of now, taken inside the write queue: the packed base as it is,
   * with a flag per page telling whether its postings there are alive — the others are
   * filed again from their term tables when restored, as edits are now. Only when those
   * would pass what the overlay may hold, or an eighth of the pages are dead in the base, is
   * it packed afresh, by the function returned, from a copy of the page list taken now (a
   * term table is replaced on change, never edited), in slices outside the queue; the
   * result becomes the base (`rebase`). Packed at every save, the postings cost a 10k-page
   * vault 0.3–0.5 s of CPU every 2 s under steady writes: the write-load p99.
   */
  snapshot(): PostingsSections | (() => Promise<PostingsSections>) {
    if (!this.needsPacking()) {
      const alive = Uint8Array.from(this.tables, (doc, id) => (doc && this.state[id] & BASE ? 1 : 0));
      return toSections(this.packed, alive);
    }
    const tables = [...this.tables];
    return async () => {
      const packed = await inSlices(packing(tables, SNAPSHOT_BLOCK));
      this.rebase(packed, tables);
      return toSections(
        packed,
        Uint8Array.from(tables, (doc) => (doc ? 1 : 0)),
      );
    };
  }

  /** Bytes held: the packed arrays, page flags and a rough cost per overlay entry and list. */
  memoryBytes(): number {
    const { starts, bytes } = this.packed;
    return (
      starts.byteLength + bytes.byteLength + this.state.byteLength + this.overlaid * 8 + this.overlay.size * 80 + this.pending.length * 8
    );
  }

  /** Files waiting pages into the overlay, or packs everything afresh once that grew too big. */
  private settle(): void {
    if (this.pending.length === 0) return;
    if (this.load() > this.overlayLimit()) return this.repack();
    for (const id of this.pending) if (this.state[id] & PENDING) this.file(id);
    this.pending = [];
  }

  /** Postings of the overlay once the waiting pages are filed. */
  private load(): number {
    let load = this.overlaid;
    for (const id of this.pending) if (this.state[id] & PENDING) load += termCount(this.tables[id]!.terms);
    return load;
  }

  private overlayLimit(): number {
    return Math.min(OVERLAY_MAX, Math.max(OVERLAY_MIN, this.packed.bytes.length / 8));
  }

  /** Whether a snapshot packs afresh (see `snapshot`): a restore would otherwise file too much, or the base is mostly dead. */
  private needsPacking(): boolean {
    return this.packed === EMPTY_POSTINGS || this.stale > this.tables.length / 8 || this.load() > this.overlayLimit();
  }

  private repack(): void {
    this.packed = packPostings(this.tables);
    this.state.fill(0);
    this.tables.forEach((doc, id) => doc && (this.state[id] = BASE));
    this.overlay.clear();
    this.overlaid = 0;
    this.pending = [];
    this.stale = 0;
  }

  /**
   * Takes `packed`, the postings of `tables` (the page list as it was earlier), as the base:
   * pages whose table is still the same are in it; pages changed since are filed again.
   */
  private rebase(packed: PackedPostings, tables: Tables): void {
    this.packed = packed;
    this.state.fill(0);
    this.overlay.clear();
    this.overlaid = 0;
    this.pending = [];
    this.stale = 0;
    for (let id = 0; id < Math.max(tables.length, this.tables.length); id++) {
      const doc = this.tables[id];
      if (doc && doc === tables[id]) this.mark(id, BASE);
      else {
        if (tables[id]) this.stale += 1;
        if (doc) this.add(id);
      }
    }
  }

  private file(id: number): void {
    this.forEachPosting(this.tables[id]!.terms, id, (key, entry) => {
      let list = this.overlay.get(key);
      if (!list) this.overlay.set(key, (list = []));
      list.splice(lowerBound(list, entry), 0, entry);
      this.overlaid += 1;
    });
    this.state[id] = FILED;
  }

  private unfile(id: number, terms: DocTerms): void {
    this.forEachPosting(terms, id, (key, entry) => {
      const list = this.overlay.get(key);
      const at = list ? lowerBound(list, entry) : -1;
      if (!list || list[at] !== entry) return;
      list.splice(at, 1);
      this.overlaid -= 1;
      if (list.length === 0) this.overlay.delete(key);
    });
  }

  private forEachPosting(terms: DocTerms, id: number, visit: (key: number, entry: number) => void): void {
    const cursor = this.cursor.open(terms);
    while (cursor.next()) {
      for (let f = 0; f < FIELD_COUNT; f++) {
        const count = cursor.tf[f];
        if (count !== 0) visit(cursor.id * FIELD_COUNT + f, (slotOf(count) * SPAN + id) * COUNTS + count);
      }
    }
  }

  private mark(id: number, state: number): void {
    if (id >= this.state.length) {
      const grown = new Uint8Array(Math.max(1024, (id + 1) * 2));
      grown.set(this.state);
      this.state = grown;
    }
    this.state[id] = state;
  }
}

function visitEntry(entry: number, visit: Visit): boolean | void {
  const key = Math.floor(entry / COUNTS);
  return visit(key % SPAN, Math.floor(key / SPAN), entry % COUNTS);
}
