import { bestFirst, type Ranked } from './best-first.js';
import type { Bm25 } from './bm25.js';
import type { IndexedDoc, IndexedDocs } from './indexed-docs.js';
import { metPool } from './met-pool.js';
import { Holdings, saturated, type Slot } from './score-bounds.js';
import { FIELD_COUNT } from './term-table.js';
import { TableScorer } from './table-scorer.js';

/** A ranked page and the bits (as Holdings numbers alternatives) of what it holds. */
export interface Found {
  doc: IndexedDoc;
  held: number;
}

/** What ranks a query's pages (see runSearch). */
export interface RankQuery {
  slots: Slot[];
  bm25: Bm25;
  /** Bits a page must hold (the words of quoted phrases). */
  required: number;
  /** The prefix and tag filters, applied before ranking; none: every page. */
  keep?: (doc: IndexedDoc) => boolean;
  /** A cheap check, by page id, that drops pages which cannot hold the query's phrases (false: certainly not). */
  mayMatch?: (id: number) => boolean;
  /**
   * A check by page id that reads no text (true: certainly not a result; undefined: cannot
   * tell without it), made on the pages met before they are scored and queued when few pass
   * it (see metPool). A rare phrase of common words ("ear joadroujadoul" at 100k pages) meets
   * 21k pages and a handful hold it: popping each in score order to be dropped by `mayMatch`
   * was most of its 30–45 ms.
   */
  lacks?: (id: number) => boolean | undefined;
}

/** Without holdings: candidates taken from the postings per term and field; rarer terms are taken whole. */
export const CANDIDATES = 500;
/** Every bit set: no holdings, every alternative is looked up. */
const ALL = -1;
/**
 * A list (an alternative in one field) is read late when it can add less than this share
 * of what the best list can, and is long enough for that to pay (bytes). Typing "ear"
 * offers the word itself, in 99% of a generated vault's pages and worth almost nothing (its
 * idf is tiny), next to its completions, found in a few titles: making a row for each of its
 * 100k postings was most of the query.
 */
const SKIP_SHARE = 0.25;
/**
 * The share for a query of one word (with its completions or typo fixes): a page scores its
 * best alternative alone, so a page met only through lists worth under half the best one's
 * rarely reaches the top, and the body lists of a prefix's completions (tens of thousands of
 * postings, worth a third of a title list) need not be read for every page. The bench's 300
 * queries at 100k pages, in-process: p50 1.8–2.4 → 0.8–1.1 ms, a prefix's 2.4–4.4 → 0.7–0.9
 * ms. Higher, the walk fills the late lists in more often (0.7 and 1: `stri*` 11–18 ms); for
 * several words 0.4 made two-word queries twice as slow, so they keep SKIP_SHARE.
 */
const SKIP_SHARE_ONE_WORD = 0.5;
const SKIP_MIN_BYTES = 512;
/**
 * Scoring a page from its term table costs about what decoding this many bytes of
 * postings does: past as many pages as the unread lists hold bytes over this, those
 * lists are read for the pages met instead (Holdings.fillIn).
 */
const TABLE_SCORE_BYTES = 2048;
/**
 * Late lists are left unread, and pages scored from their tables, only when they hold this
 * many times the bytes of the query's other lists. Below, the pages near the top were too
 * many more often than not (the bench's 300 queries at 100k: 140 of 197 gave up and read
 * the lists after all, each costing more than reading them at once).
 */
const TABLES_FROM = 40;
/**
 * Split lists are read as far as their heads only when their bytes are this many times
 * those of the lists read whole: the pages those meet get a bound, not a score, and when
 * they are many the tables to read ran out (a phrase whose rarer word, read whole, met 25k
 * pages: 12 → 17 ms, reading the tails after all).
 */
const TAILS_OVER = 8;

/**
 * The pages of a query best first, exactly as scoring every page would order them. Long
 * lists worth little next to the others are read late (see Holdings.read): pages are met
 * through the rest and scored in full, and yielded only once they beat anything a page met
 * through late lists alone could score (bestFirst's `ceiling`). When that cannot be told
 * (the caller wants more pages than beat it), the postings are read in full and the walk
 * resumes after the pages already yielded: the order is a total one, so it goes on where
 * it stopped. A quoted phrase's rarest word is never read late: a page lacking it is no
 * result, so the pages it meets are all there are.
 *
 * When the late lists dwarf the others (a common word typed with completions: 100k postings
 * beside a few hundred), they are not read at all: the pages met are taken by a bound (what
 * the late lists can add at most) and scored from their own term tables, a few dozen at most
 * (TABLE_SCORE_BYTES); past that, the late lists fill in the pages met after all and an exact
 * walk goes on after the pages already yielded.
 */
export function* rankPages(index: IndexedDocs, query: RankQuery): Generator<Ranked<Found>> {
  const late = lateLists(index, query);
  const tails = tailLists(index, query, late);
  let yielded = 0;
  if (late || tails) {
    const [unread, read] = late ? listBytes(index, query.slots, late) : [0, 0];
    // Pages' tables pay when the late lists dwarf the others; else the pages near the top are too many.
    const unreadLate = late !== undefined && unread >= TABLES_FROM * read;
    const holdings = Holdings.read(index, query.slots, query.bm25, late, unreadLate, tails)!;
    // A page not met lacks every required word none of whose lists was read late or whole.
    const ceiling = query.required & ~(lateBits(late) | lateBits(tails)) ? -Infinity : holdings.ceiling();
    const tables = { left: ((unreadLate ? unread : 0) + (tails ? listBytes(index, query.slots, tails)[0] : 0)) / TABLE_SCORE_BYTES };
    let walk = walkHoldings(index, query, holdings, ceiling, tables);
    let skip = 0;
    try {
      for (let step = walk.next(); ; step = walk.next()) {
        if (!step.done) {
          if (skip > 0) skip -= 1;
          else {
            yield step.value;
            yielded += 1;
          }
          continue;
        }
        if (step.value) return;
        if (!holdings.partial || tables.left >= 0) break;
        // Too many pages near the top to read each one's table: the unread lists fill in the
        // pages met, and a walk on exact scores goes on after the pages already yielded.
        holdings.fillIn(index, query.slots, query.bm25);
        walk = walkHoldings(index, query, holdings, ceiling);
        skip = yielded;
      }
    } finally {
      walk.return(false);
    }
  }
  const holdings = Holdings.read(index, query.slots, query.bm25);
  const walk = holdings ? walkHoldings(index, query, holdings) : walkCandidates(index, query);
  for (const ranked of walk) if (yielded-- <= 0) yield ranked;
}

/** Bytes of the lists `marked` marks (per alternative in bit order, field f at bit f), and of the query's other lists. */
function listBytes(index: IndexedDocs, slots: Slot[], marked: Uint8Array): [number, number] {
  const bytes = [0, 0];
  slots
    .flatMap((s) => s.alternatives)
    .forEach((alt, bit) => {
      for (let f = 0; f < FIELD_COUNT; f++) bytes[marked[bit] & (1 << f) ? 0 : 1] += index.postings.weight(alt.id, f);
    });
  return [bytes[0], bytes[1]];
}

function lateBits(late: Uint8Array | undefined): number {
  let bits = 0;
  late?.forEach((fields, bit) => fields && (bits |= 1 << bit));
  return bits;
}

/**
 * Per alternative (in bit order), the fields (bit f) whose lists are read as far as their
 * head (see Postings.tail): every split list, a late one's head then filling in the pages
 * met as a late list does, provided the split lists hold TAILS_OVER times the bytes of the
 * lists read whole. None when no list is split. A late split list is a common word's beside
 * a phrase's rarer one ("voast thain": 204 KB decoded whole to fill in ~7k pages).
 */
function tailLists(index: IndexedDocs, { slots, bm25 }: RankQuery, late: Uint8Array | undefined): Uint8Array | undefined {
  const alternatives = slots.flatMap((s) => s.alternatives);
  if (alternatives.length > 32) return undefined;
  const tails = new Uint8Array(alternatives.length);
  const bytes = [0, 0];
  alternatives.forEach((alt, bit) => {
    for (let f = 0; f < FIELD_COUNT; f++) {
      const split = index.postings.tail(alt.id, f, bm25) > 0;
      if (split) tails[bit] |= 1 << f;
      if (split || !((late?.[bit] ?? 0) & (1 << f))) bytes[split ? 0 : 1] += index.postings.weight(alt.id, f);
    }
  });
  return bytes[0] > 0 && bytes[0] >= TAILS_OVER * bytes[1] ? tails : undefined;
}

/**
 * Per alternative (in bit order), the fields (bit f) whose lists are worth reading late
 * (see SKIP_SHARE and Holdings.read); none when every list is read in full.
 */
function lateLists(index: IndexedDocs, { slots, bm25, required }: RankQuery): Uint8Array | undefined {
  const alternatives = slots.flatMap((s) => s.alternatives);
  if (alternatives.length > 32) return undefined;
  const weight = (alt: Slot['alternatives'][number]) => [0, 1, 2, 3].reduce((n, f) => n + index.postings.weight(alt.id, f), 0);
  // Pages must hold every required word: the rarest, read in full, meets every page that can.
  let driver = -1;
  alternatives.forEach((alt, bit) => {
    if (required & (1 << bit) && (driver < 0 || weight(alt) < weight(alternatives[driver]))) driver = bit;
  });
  const bound = (alt: Slot['alternatives'][number], f: number) => alt.weight * (saturated(index, alt.id, bm25, 1 << f) * alt.idf);
  let top = 0;
  for (const alt of alternatives) for (let f = 0; f < FIELD_COUNT; f++) top = Math.max(top, bound(alt, f));
  const share = slots.length === 1 ? SKIP_SHARE_ONE_WORD : SKIP_SHARE;
  const skip = new Uint8Array(alternatives.length);
  let any = false;
  alternatives.forEach((alt, bit) => {
    for (let f = 0; f < FIELD_COUNT && bit !== driver; f++) {
      if (bound(alt, f) >= share * top || index.postings.weight(alt.id, f) < SKIP_MIN_BYTES) continue;
      skip[bit] |= 1 << f;
      any = true;
    }
  });
  return any ? skip : undefined;
}

/**
 * The pages holdings met, best first. While lists are left unread, `scores` are bounds and
 * pages are scored from their own tables, at most `tables.left` of them: past that the
 * walk gives up (returns false, `tables.left` below 0).
 */
function walkHoldings(
  index: IndexedDocs,
  { slots, bm25, required, keep, mayMatch, lacks }: RankQuery,
  holdings: Holdings,
  ceiling?: number,
  tables = { left: 0 },
): Generator<Ranked<Found>, boolean> {
  const pool = metPool(index, holdings.holding(required), keep, lacks);
  const scores = holdings.scores(pool);
  const table = holdings.partial ? new TableScorer(slots, bm25) : undefined;
  return bestFirst(
    scores,
    (i) => {
      if (!table) {
        // The page's own object last: at 100k pages it is a cache miss, and phrases pop thousands.
        const held = holdings.mask(pool[i]);
        if ((held & required) !== required || scores[i] <= 0) return undefined;
        // The phrase filter before the page's object: once made, it reads none.
        if (mayMatch && !mayMatch(pool[i])) return undefined;
        const doc = index.docs[pool[i]];
        if (!doc) return undefined;
        return { item: { doc, held }, key: doc.path, score: scores[i] };
      }
      const doc = index.docs[pool[i]];
      if (!doc) return undefined;
      // The phrase filter first: it costs less than reading the page's table.
      if (mayMatch && !mayMatch(doc.id)) return undefined;
      // Met in the head of every list left unread that may hold it: its bound is its score.
      const known = holdings.known(pool[i]);
      if (!known && --tables.left < 0) return null;
      const score = known ? scores[i] : table.score(doc);
      const held = known ? holdings.mask(pool[i]) : table.held;
      if ((held & required) !== required || score <= 0) return undefined;
      return { item: { doc, held }, key: doc.path, score };
    },
    ceiling,
  );
}

/** Without holdings (more alternatives than a mask has bits): the best candidates per term, each scored in full. */
function walkCandidates(index: IndexedDocs, { slots, bm25, keep, mayMatch }: RankQuery): Generator<Ranked<Found>, boolean> {
  const pool = [...candidates(index, slots)].filter((id) => index.docs[id] && (!keep || keep(index.docs[id])));
  return bestFirst(new Float64Array(pool.length).fill(Infinity), (i) => {
    const doc = index.docs[pool[i]]!;
    if (mayMatch && !mayMatch(doc.id)) return undefined;
    const total = scoreDoc(bm25, doc, slots, ALL);
    return total > 0 ? { item: { doc, held: ALL }, key: doc.path, score: total } : undefined;
  });
}

function candidates(index: IndexedDocs, slots: Slot[]): Set<number> {
  const out = new Set<number>();
  for (const slot of slots) {
    for (const alt of slot.alternatives) for (const id of index.postings.candidates([alt.id], alt.depth)) out.add(id);
  }
  // Pages holding all the (common) terms may lie beyond each single term's cut.
  const exact = slots.map((s) => s.alternatives.find((a) => a.weight === 1)?.id).filter((id) => id !== undefined);
  if (exact.length > 1) for (const id of index.postings.candidates(exact, CANDIDATES)) out.add(id);
  return out;
}

/** A page's score: per slot its best alternative among `held`, summed, scaled by the share of slots matched. */
function scoreDoc(bm25: Bm25, doc: IndexedDoc, slots: Slot[], held: number): number {
  let total = 0;
  let matched = 0;
  let bit = 0;
  for (const slot of slots) {
    let best = 0;
    for (const alt of slot.alternatives) {
      // Bits past 31 only occur without holdings (ALL); `1 << 32` would wrap to bit 0.
      const holds = held === ALL || (held & (1 << bit)) !== 0;
      bit += 1;
      if (holds) best = Math.max(best, alt.weight * bm25.score(doc.terms, alt.id, alt.idf));
    }
    if (best > 0) matched += 1;
    total += best;
  }
  return (total * matched) / slots.length;
}
