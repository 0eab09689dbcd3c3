import { bestFirst } from './best-first.js';
import { Bm25 } from './bm25.js';
import { closeTerms } from './fuzzy.js';
import { parseQuery, phraseTest, type Clause } from './query.js';
import { Holdings, type Slot } from './score-bounds.js';
import type { IndexedDoc, IndexedDocs } from './indexed-docs.js';
import { snippet } from './snippet.js';
import { isCjk } from './tokenize.js';

export interface SearchOptions {
  limit?: number;
  /** Folder prefix with its trailing "/" (as normalizePrefix returns it). */
  prefix?: string;
  /** Tag without "#"; also matches nested tags ("project" matches "project/alpha"). */
  tag?: string;
  /** Read permission: pages it rejects are never returned and never take a result's place. */
  visible?: (path: string) => boolean;
}

export interface SearchHit {
  path: string;
  title: string;
  hash: string;
  score: number;
  /** Body excerpt with matched words in `**bold**`. */
  snippet: string;
}

export interface SearchOutcome {
  results: SearchHit[];
  /** The query with unknown words replaced by the closest vault terms, when there were any. */
  suggestion?: string;
}

export const DEFAULT_LIMIT = 10;
/** Without holdings: candidates taken from the postings per term and field; rarer terms are taken whole. */
const CANDIDATES = 500;
const EXPANSIONS = 8;
/**
 * Candidates per completion of a prefix: a completion is a guess that scores at most half
 * an exact match, so only its best pages can reach the top; taking 500 of each of eight
 * made scoring the bulk of a search-as-you-type query.
 */
const EXPANSION_CANDIDATES = 100;
const WEIGHT = { exact: 1, explicit: 0.8, typing: 0.5, typo: 0.7 };

/**
 * Query → ranked pages. Every page holding a query term (read off the postings, see
 * Holdings) is ranked by BM25F over our own statistics, scaled by the share of query
 * terms it matched; only the few whose bound can reach the top are scored in full. A
 * query with more alternatives than Holdings can track falls back to the best candidates
 * per term (the pages using it most, per field). Filters apply before the cut to `limit`,
 * and the costlier checks (permission, phrase) run lazily in score order.
 */
export function runSearch(index: IndexedDocs, query: string, options: SearchOptions): SearchOutcome {
  const clauses = parseQuery(query);
  const { slots, suggestion } = resolveSlots(index, clauses, query, options.visible);
  const phrases = clauses.filter((c) => c.phrase).map((c) => phraseTest(c.terms));
  const tag = options.tag?.replace(/^#/, '').toLowerCase();
  const bm25 = new Bm25(index.stats);
  const holdings = Holdings.read(index, slots, bm25);
  let pool: ArrayLike<number> = holdings ? holdings.pages : [...candidates(index, slots)];
  if (options.prefix || tag !== undefined) {
    pool = Array.prototype.filter.call(pool, (id: number) => {
      const doc = index.docs[id];
      return doc && (!options.prefix || doc.path.startsWith(options.prefix)) && (tag === undefined || doc.tags.some((t) => hasTag(t, tag)));
    }) as number[];
  }
  const required = phraseWords(clauses, slots);
  if (required === undefined) return suggestion === undefined ? { results: [] } : { results: [], suggestion };
  const bounds = holdings ? holdings.bounds(pool) : new Float64Array(pool.length).fill(Infinity);
  const ranked = bestFirst(bounds, (i) => {
    const doc = index.docs[pool[i]];
    if (!doc) return undefined;
    const held = holdings ? holdings.mask(doc.id) : ALL;
    if ((held & required) !== required) return undefined;
    // Where the postings gave exact counts the bound is the score, to the bit (see Holdings).
    const total = holdings?.exact(doc.id) ? bounds[i] : scoreDoc(bm25, doc, slots, held);
    return total > 0 ? { item: doc, key: doc.path, score: total } : undefined;
  });

  const terms = slots.flatMap((s) => s.alternatives.map((a) => a.term));
  const matched = new Set(terms);
  const limit = options.limit ?? DEFAULT_LIMIT;
  const results: SearchHit[] = [];
  for (const { item: doc, score } of ranked) {
    if (results.length >= limit) break;
    if (options.visible && !options.visible(doc.path)) continue;
    if (phrases.length && !hasPhrases(index, doc, phrases)) continue;
    results.push({
      path: doc.path,
      title: doc.title,
      hash: doc.hash,
      score: Math.round(score * 1000) / 1000,
      snippet: snippet(index.body(doc), holdings ? heldTerms(terms, holdings.mask(doc.id)) : matched),
    });
  }
  return suggestion === undefined ? { results } : { results, suggestion };
}

/**
 * Each query term's alternatives: itself, completions and typo fixes, all among the terms
 * of pages `visible` accepts (see SearchIndex.knows).
 */
function resolveSlots(
  index: IndexedDocs,
  clauses: Clause[],
  query: string,
  visible?: (path: string) => boolean,
): { slots: Slot[]; suggestion?: string } {
  const { stats } = index;
  const known = (t: string) => index.knows(t, visible);
  const slots: Slot[] = [];
  let suggestion: string | undefined;
  for (const clause of clauses) {
    clause.terms.forEach((term, i) => {
      const alternatives: Slot['alternatives'] = [];
      const add = (t: string, weight: number, depth = CANDIDATES) => {
        const id = stats.id(t)!;
        alternatives.push({ id, term: t, weight, idf: stats.idf(id), depth });
      };
      if (known(term)) add(term, WEIGHT.exact);
      if (clause.prefix !== 'none' && i === clause.terms.length - 1) {
        for (const t of stats.expand(term, EXPANSIONS, known)) add(t, WEIGHT[clause.prefix], EXPANSION_CANDIDATES);
      }
      if (alternatives.length === 0 && !isCjk(term)) {
        const fixes = closeTerms(term, stats.sorted, known)
          .sort((a, b) => a.distance - b.distance || stats.docFreq(b.term) - stats.docFreq(a.term))
          .slice(0, 3);
        for (const fix of fixes) add(fix.term, WEIGHT.typo / fix.distance);
        if (fixes.length) suggestion = replaceWord(suggestion ?? query, term, fixes[0].term);
      }
      slots.push({ alternatives });
    });
  }
  return { slots, suggestion };
}

function candidates(index: IndexedDocs, slots: Slot[]): Set<number> {
  const out = new Set<number>();
  for (const slot of slots) {
    for (const alt of slot.alternatives) for (const id of index.postings.candidates([alt.id], alt.depth)) out.add(id);
  }
  // Pages holding all the (common) terms may lie beyond each single term's cut.
  const exact = slots.map((s) => s.alternatives.find((a) => a.weight === WEIGHT.exact)?.id).filter((id) => id !== undefined);
  if (exact.length > 1) for (const id of index.postings.candidates(exact, CANDIDATES)) out.add(id);
  return out;
}

/**
 * The terms of the alternatives a page holds (bits as Holdings numbers them): only those can
 * be words of its body, so the snippet looks for no other (a prefix query has up to nine, a
 * page holds one or two; looking for each through the whole body was most of a snippet).
 */
function heldTerms(terms: string[], held: number): Set<string> {
  const out = new Set<string>();
  terms.forEach((term, bit) => held & (1 << bit) && out.add(term));
  return out;
}

/** Every bit set: no holdings, every alternative is looked up. */
const ALL = -1;

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

/**
 * Bits (numbered as Holdings numbers alternatives) of the words of quoted phrases: a page
 * lacking one cannot hold the phrase and is dropped before its body is read. Undefined
 * when a phrase word is in no page.
 */
function phraseWords(clauses: Clause[], slots: Slot[]): number | undefined {
  let required = 0;
  let bit = 0;
  let s = 0;
  for (const clause of clauses) {
    for (const term of clause.terms) {
      const { alternatives } = slots[s++];
      if (clause.phrase) {
        const at = alternatives.findIndex((a) => a.term === term);
        if (at < 0) return undefined;
        // Past 31 there are no holdings: every page's mask is ALL.
        if (bit + at < 32) required |= 1 << (bit + at);
      }
      bit += alternatives.length;
    }
  }
  return required;
}

function hasTag(tag: string, wanted: string): boolean {
  const t = tag.toLowerCase();
  return t === wanted || t.startsWith(`${wanted}/`);
}

/** Whether every phrase is in the page's title or body; the body is read once, and only if a title lacks one. */
function hasPhrases(index: IndexedDocs, doc: IndexedDoc, phrases: ((text: string) => boolean)[]): boolean {
  let body: string | undefined;
  return phrases.every((test) => test(doc.title) || test((body ??= index.body(doc))));
}

function replaceWord(query: string, term: string, fix: string): string {
  return query.replace(new RegExp(`(?<![\\p{L}\\p{N}])${term.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(?![\\p{L}\\p{N}])`, 'iu'), fix);
}
