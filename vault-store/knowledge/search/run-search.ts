import { Bm25 } from './bm25.js';
import { closeTerms, typoFilter } from './fuzzy.js';
import type { IndexedDoc, IndexedDocs } from './indexed-docs.js';
import { phrasePairs } from './pair-filter.js';
import { parseQuery, phraseTest, type Clause } from './query.js';
import { CANDIDATES, rankPages } from './ranked-pages.js';
import type { Slot } from './score-bounds.js';
import { snippet, wordPattern } from './snippet.js';
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
const EXPANSIONS = 8;
/**
 * Candidates per completion of a prefix: a completion is a guess that scores at most half
 * an exact match, so only its best pages can reach the top; taking 500 of each of eight
 * made scoring the bulk of a search-as-you-type query.
 */
const EXPANSION_CANDIDATES = 100;
const WEIGHT = { exact: 1, explicit: 0.8, typing: 0.5, typo: 0.7 };

/**
 * Query → ranked pages. Every page holding a query term is ranked by BM25F over our own
 * statistics, scaled by the share of query terms it matched, its score read off the
 * postings (see Holdings and rankPages). A query with more alternatives than Holdings can
 * track falls back to the best candidates per term (the pages using it most, per field),
 * each scored from its term table. Filters apply before the cut to `limit`, and the
 * costlier checks (permission, phrase) run lazily in score order.
 */
export function runSearch(index: IndexedDocs, query: string, options: SearchOptions): SearchOutcome {
  const clauses = parseQuery(query);
  const { slots, suggestion } = resolveSlots(index, clauses, query, options.visible);
  const required = phraseWords(clauses, slots);
  if (required === undefined) return suggestion === undefined ? { results: [] } : { results: [], suggestion };
  const phrases = clauses.filter((c) => c.phrase).map((c) => ({ test: phraseTest(c.terms), pairs: phrasePairs(c.terms) }));
  const tag = options.tag?.replace(/^#/, '').toLowerCase();
  const keep =
    options.prefix || tag !== undefined
      ? (doc: IndexedDoc) =>
          (!options.prefix || doc.path.startsWith(options.prefix)) && (tag === undefined || doc.tags.some((t) => hasTag(t, tag)))
      : undefined;
  // Pages whose filters lack a phrase's neighbouring pairs are dropped before their text is read.
  const texts = (id: number) => {
    const doc = index.docs[id];
    return doc ? [doc.title, index.body(doc)] : [];
  };
  const mayMatch = phrases.length ? (id: number) => phrases.every((p) => index.pairs.mayHold(id, texts, p.pairs)) : undefined;
  const lacks = phrases.length
    ? (id: number) => (index.pairs.has(id) ? phrases.some((p) => !index.pairs.passes(id, p.pairs)) : undefined)
    : undefined;
  const ranked = rankPages(index, { slots, bm25: new Bm25(index.stats), required, keep, mayMatch, lacks });

  const terms = slots.flatMap((s) => s.alternatives.map((a) => a.term));
  // The words to mark per combination of terms held, their pattern made once for the query's pages.
  const marks = new Map<number, { terms: Set<string>; pattern: RegExp }>();
  const limit = options.limit ?? DEFAULT_LIMIT;
  const results: SearchHit[] = [];
  for (const { item, score } of ranked) {
    if (results.length >= limit) break;
    const { doc } = item;
    if (options.visible && !options.visible(doc.path)) continue;
    // Read once for the phrase check and the snippet.
    let body: string | undefined;
    const bodyOf = () => (body ??= index.body(doc));
    if (phrases.length && !hasPhrases(doc, phrases, bodyOf)) continue;
    let mark = marks.get(item.held);
    if (!mark) {
      const held = heldTerms(terms, item.held);
      marks.set(item.held, (mark = { terms: held, pattern: wordPattern(held) }));
    }
    results.push({
      path: doc.path,
      title: doc.title,
      hash: doc.hash,
      score: Math.round(score * 1000) / 1000,
      snippet: snippet(bodyOf(), mark.terms, mark.pattern),
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
        const fixes = closeTerms(term, stats.sorted('', typoFilter(term)), known)
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

/** Whether every phrase is in the page's title or body; the body is read only if a title lacks one. */
function hasPhrases(doc: IndexedDoc, phrases: { test: (text: string) => boolean }[], body: () => string): boolean {
  return phrases.every(({ test }) => test(doc.title) || test(body()));
}

function replaceWord(query: string, term: string, fix: string): string {
  return query.replace(new RegExp(`(?<![\\p{L}\\p{N}])${term.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(?![\\p{L}\\p{N}])`, 'iu'), fix);
}
