import { bestFirst, type Ranked } from './best-first.js';
import type { Bm25 } from './bm25.js';
import type { IndexedDoc, IndexedDocs } from './indexed-docs.js';
import { Holdings, saturated, type Slot } from './score-bounds.js';
import { FIELD_COUNT } from './term-table.js';

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
  /** A cheap check that drops pages which cannot hold the query's phrases (false: certainly not). */
  mayMatch?: (doc: IndexedDoc) => boolean;
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
const SKIP_MIN_BYTES = 512;

/**
 * The pages of a query best first, exactly as scoring every page would order them. Long
 * lists worth little next to the others are read late (see Holdings.read): pages are met
 * through the rest and scored in full, and yielded only once they beat anything a page met
 * through late lists alone could score (bestFirst's `ceiling`). When that cannot be told
 * (the caller wants more pages than beat it), the postings are read in full and the walk
 * resumes after the pages already yielded: the order is a total one, so it goes on where
 * it stopped. A quoted phrase's rarest word is never read late: a page lacking it is no
 * result, so the pages it meets are all there are.
 */
export function* rankPages(index: IndexedDocs, query: RankQuery): Generator<Ranked<Found>> {
  const late = lateLists(index, query);
  let yielded = 0;
  if (late) {
    const holdings = Holdings.read(index, query.slots, query.bm25, late)!;
    // A page not met lacks every required word none of whose lists was read late.
    const ceiling = query.required & ~lateBits(late) ? -Infinity : holdings.ceiling();
    const walk = walkHoldings(index, query, holdings, ceiling);
    try {
      for (let step = walk.next(); ; step = walk.next()) {
        if (step.done) {
          if (step.value) return;
          break;
        }
        yield step.value;
        yielded += 1;
      }
    } finally {
      walk.return(false);
    }
  }
  const holdings = Holdings.read(index, query.slots, query.bm25);
  const walk = holdings ? walkHoldings(index, query, holdings) : walkCandidates(index, query);
  for (const ranked of walk) if (yielded-- <= 0) yield ranked;
}

function lateBits(late: Uint8Array): number {
  let bits = 0;
  late.forEach((fields, bit) => fields && (bits |= 1 << bit));
  return bits;
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
  const skip = new Uint8Array(alternatives.length);
  let any = false;
  alternatives.forEach((alt, bit) => {
    for (let f = 0; f < FIELD_COUNT && bit !== driver; f++) {
      if (bound(alt, f) >= SKIP_SHARE * top || index.postings.weight(alt.id, f) < SKIP_MIN_BYTES) continue;
      skip[bit] |= 1 << f;
      any = true;
    }
  });
  return any ? skip : undefined;
}

function walkHoldings(
  index: IndexedDocs,
  { required, keep, mayMatch }: RankQuery,
  holdings: Holdings,
  ceiling?: number,
): Generator<Ranked<Found>, boolean> {
  const pool: ArrayLike<number> = keep
    ? (Array.prototype.filter.call(holdings.pages, (id: number) => index.docs[id] !== undefined && keep(index.docs[id])) as number[])
    : holdings.pages;
  const scores = holdings.scores(pool);
  return bestFirst(
    scores,
    (i) => {
      const doc = index.docs[pool[i]];
      if (!doc) return undefined;
      const held = holdings.mask(doc.id);
      if ((held & required) !== required || scores[i] <= 0) return undefined;
      if (mayMatch && !mayMatch(doc)) return undefined;
      return { item: { doc, held }, key: doc.path, score: scores[i] };
    },
    ceiling,
  );
}

/** Without holdings (more alternatives than a mask has bits): the best candidates per term, each scored in full. */
function walkCandidates(index: IndexedDocs, { slots, bm25, keep, mayMatch }: RankQuery): Generator<Ranked<Found>, boolean> {
  const pool = [...candidates(index, slots)].filter((id) => index.docs[id] && (!keep || keep(index.docs[id])));
  return bestFirst(new Float64Array(pool.length).fill(Infinity), (i) => {
    const doc = index.docs[pool[i]]!;
    if (mayMatch && !mayMatch(doc)) return undefined;
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
