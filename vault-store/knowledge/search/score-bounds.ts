import type { Bm25 } from './bm25.js';
import type { IndexedDocs } from './indexed-docs.js';
import { PostingReader } from './posting-reader.js';
import { credit, foldUpper, forgetPasses, growTails, meetTails, settledIn, upperOf } from './tail-bounds.js';
import { FIELD_COUNT } from './term-stats.js';

/** One query term and the index terms that may stand in for it (itself, completions, typo fixes). */
export interface Slot {
  /** `depth`: how many candidates the postings supply for the term, per field, without holdings. */
  alternatives: { id: number; term: string; weight: number; idf: number; depth: number }[];
}

/** Alternatives a query may have for holdings to be read (a mask has 32 bits). */
const BITS = 32;
const ALL_FIELDS = (1 << FIELD_COUNT) - 1;

/**
 * Scratch reused by every query (searches run one at a time, synchronously): fresh arrays
 * per query were garbage whose collections landed in the slowest queries. All by page id:
 * a page is met when `meet[id]` is the query's stamp, so nothing is cleared in bulk; then
 * `best` holds the best score of each slot (slots × ids), `held` the bits of the alternatives
 * held and `current` the sum over fields of the alternative being read; `touched` lists the
 * pages that alternative met. By id, not by a row per page in the order met: a list's ids
 * ascend within each run, so a posting's reads and writes go forward through memory, where
 * rows in meeting order sent a second list's postings all over ~1 MB: a phrase of two
 * common words at 100k pages is read and scored ~15–20% faster.
 */
let meet = new Uint32Array(0);
let best = new Float64Array(0);
let held = new Int32Array(0);
let current = new Float64Array(0);
let touched = new Int32Array(0);
/** Per page, the pass (an alternative being summed, see `nextPass`) that last summed it: a count over all queries, never cleared. */
let marks = new Uint32Array(0);
let pass = 0;
/** The pages met (ascending when many), those of them `holding` kept; and the scores handed out last. */
let metPages = new Int32Array(0);
let kept = new Int32Array(0);
let scored = new Float64Array(0);
let stamp = 0;
const reader = new PostingReader();
/** One list's postings at a time, decoded whole (PostingReader.drain), and what each adds (`partsOf`). */
let listIds = new Int32Array(0);
let listCounts = new Int32Array(0);
let listParts = new Float64Array(0);

/**
 * What each page holds of a query's alternative terms, read off the postings alone: every
 * page holding any of them, which it holds, and per slot the best of its alternatives'
 * BM25 scores, each summed over fields from the counts the postings give: the page's
 * exact score, to the bit, with no term table read. An alternative's score is folded into
 * its slot's best once its fields are read, so a page costs a number per slot, not per
 * alternative (a prefix has up to nine): scoring the pages of a prefix query at 100k took
 * 6 ms, then 1.4. Alternatives are numbered in slot order; a query with more than 32 has no
 * holdings (its candidates are scored in full).
 */
export class Holdings {
  private constructor(
    private readonly width: number,
    /** Every page holding some alternative (see `ascending`); valid until the next query. */
    readonly pages: Int32Array,
    /** Per slot, the most its alternatives can score through lists read late or tails left unread (0: none was). */
    private readonly unread: Float64Array,
    /** Per slot, the most its alternatives can score through lists a page met may still be in, unread. */
    private readonly open: Float64Array,
    /** Per alternative, whether some list of it was left unread (`fillIn` reads them); none when all were read. */
    private readonly late: ArrayLike<number> | undefined,
    /** Alternatives with lists left unread: a page met in each of their heads has its exact score (see `known`). */
    private readonly unsettled: number,
  ) {}

  /** Whether `fillIn` read the lists left unread. */
  private filled = false;

  /**
   * `late`: per alternative (in bit order), fields (bit f) whose lists only fill in the pages
   * the other lists met: a page met through none of those is not met at all, and scores at
   * most `ceiling()`; every page met is as a full read leaves it. A late list costs a
   * decode per posting, and meets no page: typing "ear" offers the word itself, in 99% of a
   * generated vault's pages (with a tiny idf), beside completions found in a few titles.
   * With `unreadLate`, late lists are not read at all (see `partial`).
   *
   * `tails`: per alternative, fields whose list is read as far as its head (see
   * `Postings.tail`): a page met in a head scores what it adds there; one not met in the
   * head of a list may be in its tail, and adds at most the tail's bound through it.
   */
  static read(
    index: IndexedDocs,
    slots: Slot[],
    bm25: Bm25,
    late?: ArrayLike<number>,
    unreadLate = false,
    tails?: ArrayLike<number>,
  ): Holdings | undefined {
    const alternatives = slots.reduce((n, s) => n + s.alternatives.length, 0);
    if (alternatives > BITS) return undefined;
    const size = index.docs.length;
    const width = slots.length;
    if (held.length < size) {
      const ids = Math.max(size, 1024);
      [meet, held, current, touched, marks] = [
        new Uint32Array(ids),
        new Int32Array(ids),
        new Float64Array(ids),
        new Int32Array(ids),
        new Uint32Array(ids),
      ];
      [metPages, kept, scored] = [new Int32Array(ids), new Int32Array(ids), new Float64Array(ids)];
      [listIds, listCounts, listParts] = [new Int32Array(ids), new Int32Array(ids), new Float64Array(ids)];
    }
    if (best.length < size * width) best = new Float64Array(Math.max(size, 1024) * width);
    growTails(Math.max(size, 1024), width);
    stamp += 1;
    if (stamp === 0xffffffff) {
      meet.fill(0);
      stamp = 1;
    }
    const [now, pages, ids, counts, parts] = [stamp, metPages, listIds, listCounts, listParts];
    let rows = 0;
    const unread = new Float64Array(width);
    const open = new Float64Array(width);
    // Alternatives read in full first, then those with late lists: by then every page is met.
    const order = slots.flatMap((slot, s) => slot.alternatives.map((alt) => ({ alt, s, bit: 0, fields: 0, tail: 0 })));
    order.forEach((entry, bit) => Object.assign(entry, { bit, fields: late?.[bit] ?? 0, tail: tails?.[bit] ?? 0 }));
    order.sort((a, b) => (a.fields ? 1 : 0) - (b.fields ? 1 : 0) || a.bit - b.bit);
    const partial = order.some((e) => e.tail || (unreadLate && e.fields));
    let unsettled = 0;
    const lengths = index.lengths;
    for (const { alt, fields, tail } of order) {
      if (fields === 0 || fields === ALL_FIELDS || unreadLate) continue;
      for (let f = 0; f < FIELD_COUNT; f++) {
        if (fields & (1 << f)) continue;
        const n = index.postings.read(alt.id, f, reader, (tail & (1 << f)) !== 0).drain(ids, counts);
        rows = meetPages(ids, n, rows, width, now, partial);
      }
    }
    const caps = new Float64Array(FIELD_COUNT);
    for (const { alt, s, bit, fields, tail } of order) {
      const most = fields ? saturated(index, alt.id, bm25, fields) : 0;
      // What a page not met may hold: late lists at saturation (`most`), tails of the others.
      let tailed = 0;
      // What a page met may still hold unread: late lists filled in are read for it, tails are not.
      let opened = unreadLate ? most : 0;
      for (let f = 0; f < FIELD_COUNT; f++) {
        const late = (fields & (1 << f)) !== 0;
        caps[f] = tail & (1 << f) && !(late && unreadLate) ? index.postings.tail(alt.id, f, bm25) : 0;
        if (!late) tailed += caps[f];
        opened += caps[f];
      }
      if (fields || tail) unread[s] = Math.max(unread[s], alt.weight * ((most + tailed) * alt.idf));
      if (partial) open[s] = Math.max(open[s], alt.weight * (opened * alt.idf));
      nextPass();
      let count = 0;
      // Fields in FIELDS order, as Bm25.score sums them: the same additions, the same bits.
      for (let f = 0; f < FIELD_COUNT; f++) {
        const late = (fields & (1 << f)) !== 0;
        if (late && unreadLate) continue;
        const head = caps[f] > 0;
        let n = index.postings.read(alt.id, f, reader, head).drain(ids, counts);
        // A late list fills in the pages met; the others it would meet score at most `ceiling()`.
        if (late) n = keepMet(ids, counts, n, now);
        else rows = meetPages(ids, n, rows, width, now, partial);
        partsOf(bm25, f, ids, counts, n, lengths, parts);
        count = sumParts(ids, parts, n, count, pass);
        if (head) credit(ids, n, caps[f], pass);
      }
      foldAlternative(count, 1 << bit, width, s, alt);
      if (partial) foldUpper(touched, count, current, pass, { width, s, weight: alt.weight, idf: alt.idf, opened });
      if (opened > 0) unsettled += 1;
    }
    const unreadLists = new Uint8Array(order.length);
    for (const e of order) unreadLists[e.bit] = e.tail | (unreadLate ? e.fields : 0);
    return new Holdings(width, ascending(pages, rows, meet, now), unread, open, partial ? unreadLists : undefined, unsettled);
  }

  /**
   * The pages met that hold every alternative of `bits` (all of them for none), in order;
   * valid until the next call. Once lists were left unread, masks are too little to tell.
   * A phrase's words are required: a page holding only the rarer one was popped from the
   * queue to be dropped, ~19k of ~22k for "weabe vaquouck" at 100k pages.
   */
  holding(bits: number): Int32Array {
    const { pages } = this;
    if (bits === 0 || this.partial) return pages;
    let n = 0;
    for (let i = 0; i < pages.length; i++) if ((held[pages[i]] & bits) === bits) kept[n++] = pages[i];
    return kept.subarray(0, n);
  }

  /**
   * Whether page `id`'s score and mask are known although lists were left unread: every
   * alternative that left some met it in the head of each (what it adds there is read, and
   * it is in none of their tails). Always, once nothing is left unread.
   */
  known(id: number): boolean {
    return !this.partial || settledIn(id, this.unsettled);
  }

  /** Bit i set: the page holds alternative i in some field. */
  mask(id: number): number {
    return held[id];
  }

  /** The most a page the read did not meet can score: it holds the query's terms only where lists were read late. */
  ceiling(): number {
    let total = 0;
    let matched = 0;
    for (const value of this.unread) {
      if (value > 0) matched += 1;
      total += value;
    }
    return (total * matched) / this.width;
  }

  /** Whether lists were left unread (`unreadLate`) and not yet filled in: `scores` gives upper bounds, `mask` too little. */
  get partial(): boolean {
    return !this.filled && this.late !== undefined;
  }

  /**
   * Reads the lists `read` left unread (`late`) for the pages it met only,
   * each such alternative again whole, its fields in order (the same additions as a full
   * read): every page met then has its exact score (`scores`) and mask, as if nothing had
   * been read late. A decode per posting, no page met.
   */
  fillIn(index: IndexedDocs, slots: Slot[], bm25: Bm25): void {
    const { width, late } = this;
    if (!late) return;
    const [ids, counts, parts] = [listIds, listCounts, listParts];
    const lengths = index.lengths;
    let bit = 0;
    slots.forEach((slot, s) => {
      for (const alt of slot.alternatives) {
        const mask = 1 << bit;
        if (!late[bit++]) continue;
        nextPass();
        let count = 0;
        for (let f = 0; f < FIELD_COUNT; f++) {
          const read = index.postings.read(alt.id, f, reader).drain(ids, counts);
          const n = keepMet(ids, counts, read, stamp);
          partsOf(bm25, f, ids, counts, n, lengths, parts);
          count = sumParts(ids, parts, n, count, pass);
        }
        foldAlternative(count, mask, width, s, alt);
      }
    });
    this.filled = true;
  }

  /**
   * For each of `ids` (pages it met), the score scoreDoc gives the page, by the same float
   * operations; while lists are left unread, a bound on it: per slot, the most an
   * alternative can score with what the page may hold in lists unread (see `foldUpper`),
   * with a margin for rounding far below BM25's own between a count and saturation. Valid until the next
   * query: like the scratch it is read from, the array is reused.
   */
  scores(ids: ArrayLike<number>): Float64Array {
    const { width, open } = this;
    const partial = this.partial;
    const out = scored.subarray(0, ids.length);
    for (let i = 0; i < ids.length; i++) {
      const row = ids[i] * width;
      const bound = partial && !this.known(ids[i]);
      let total = 0;
      let matched = 0;
      for (let k = row; k < row + width; k++) {
        const value = bound ? Math.max(upperOf(k), open[k - row]) * UP : best[k];
        if (value > 0) matched += 1;
        total += value;
      }
      out[i] = (total * matched) / width;
    }
    return out;
  }
}

/*
 * The per-posting loops of `read` and `fillIn`, each a small function of its own. Inside the
 * large `read` they were thrown out of optimised code whenever a query took a path not taken
 * before (`--trace-deopt`), and the rest of the loop boxed the numbers it computed: the garbage
 * sampled over the bench's 300 queries at 100k fell from ~48 to ~36 MB once they moved out.
 */

/** Starts the pass of the next alternative read (see `marks`). */
function nextPass(): void {
  if (++pass !== 0xffffffff) return;
  marks.fill(0);
  forgetPasses();
  pass = 1;
}

/**
 * Adds the first `n` parts (`parts`, of pages `ids`) to the pages' sums for the alternative
 * of pass `now`, in order: a page's first starts its sum and is listed in `touched` after the
 * `count` there; returns the new count.
 */
function sumParts(ids: Int32Array, parts: Float64Array, n: number, count: number, now: number): number {
  const [sums, marked, met] = [current, marks, touched];
  for (let p = 0; p < n; p++) {
    const id = ids[p];
    if (marked[id] === now) sums[id] += parts[p];
    else {
      marked[id] = now;
      sums[id] = parts[p];
      met[count++] = id;
    }
  }
  return count;
}

/** The pages the alternative just summed touched (`count`) now hold it (`mask`), and its score, as scoreDoc weighs it, in their slot's best. */
function foldAlternative(count: number, mask: number, width: number, s: number, { weight, idf }: Slot['alternatives'][number]): void {
  const [sums, met, holds, bests] = [current, touched, held, best];
  for (let t = 0; t < count; t++) {
    const id = met[t];
    holds[id] |= mask;
    const at = id * width + s;
    bests[at] = Math.max(bests[at], weight * (sums[id] * idf));
  }
}

/** Keeps, in place, the first `n` postings (`ids`, `counts`) whose page is met (stamp `now`); returns how many. */
function keepMet(ids: Int32Array, counts: Int32Array, n: number, now: number): number {
  let kept = 0;
  for (let p = 0; p < n; p++) {
    if (meet[ids[p]] !== now) continue;
    ids[kept] = ids[p];
    counts[kept++] = counts[p];
  }
  return kept;
}

/** What each of the first `n` postings (`ids`, `counts`) of a list in field `f` adds, into `out`. */
function partsOf(bm25: Bm25, f: number, ids: Int32Array, counts: Int32Array, n: number, lengths: Uint32Array, out: Float64Array): void {
  for (let p = 0; p < n; p++) out[p] = bm25.part(f, counts[p], lengths[ids[p] * FIELD_COUNT + f]);
}

/** Marks the pages of the first `n` of `ids` met, each not met yet as the next of `rows` pages; returns how many there are now. */
function meetPages(ids: Int32Array, n: number, rows: number, width: number, now: number, partial: boolean): number {
  for (let p = 0; p < n; p++) {
    const id = ids[p];
    if (meet[id] === now) continue;
    meet[id] = now;
    metPages[rows++] = id;
    for (let k = id * width; k < id * width + width; k++) best[k] = 0;
    if (partial) meetTails(id, width);
    held[id] = 0;
  }
  return rows;
}

/**
 * The `rows` pages of `pages` met (stamp `now` in `seen`), in ascending id order when they
 * are many: a query then reads their scores forward through memory. Taken from the stamps
 * (a pass over every page id), so only when they are half of them or more.
 */
function ascending(pages: Int32Array, rows: number, seen: Uint32Array, now: number): Int32Array {
  if (rows < seen.length / 2) return pages.subarray(0, rows);
  let n = 0;
  for (let id = 0; id < seen.length && n < rows; id++) if (seen[id] === now) pages[n++] = id;
  return pages.subarray(0, rows);
}

/** Rounding margin of a bound that adds what unread lists may give (see `scores`). */
const UP = 1 + 1e-9;

/** The most term `term` adds through `fields` (bit f) to a page's sum before idf: each field it is in at the saturated count. */
export function saturated(index: IndexedDocs, term: number, bm25: Bm25, fields: number): number {
  let sum = 0;
  for (let f = 0; f < FIELD_COUNT; f++) if (fields & (1 << f) && index.postings.holds(term, f)) sum += bm25.part(f, Infinity, 0);
  return sum;
}
