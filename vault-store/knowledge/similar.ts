import { QuireError } from '../errors.js';
import type { SearchIndex } from './search/search-index.js';
import { weightedTf } from './search/bm25.js';
import { TermCursor } from './search/term-table.js';
import { tokenize } from './search/tokenize.js';

export type SimilarInput = { path: string } | { text: string };

export interface SimilarHit {
  path: string;
  title: string;
  hash: string;
  score: number;
}

/** Terms of the source that look for candidates; the cosine still uses every term. */
const SEED_TERMS = 16;
const CANDIDATES_PER_TERM = 200;

type Vector = Map<number, number>;

/**
 * Pages most like a page or a text, by cosine of TF-IDF vectors (sublinear, field-weighted
 * tf times BM25 idf) computed from the vault itself. Candidates are the pages sharing the
 * source's most distinctive terms.
 */
export function similar(index: SearchIndex, input: SimilarInput, limit = 10, visible?: (path: string) => boolean): SimilarHit[] {
  const source = 'path' in input ? index.get(input.path) : undefined;
  if ('path' in input && !source) throw new QuireError('NOT_FOUND', `No page at ${input.path}`, { path: input.path });
  const vector = source ? docVector(index, source.id) : textVector(index, input as { text: string }, visible);
  const seeds = [...vector].sort((a, b) => b[1] - a[1]).slice(0, SEED_TERMS);
  const candidates = new Set<number>();
  for (const [id] of seeds) for (const doc of index.postings.candidates([id], CANDIDATES_PER_TERM)) candidates.add(doc);
  const norm = length(vector);
  const hits: SimilarHit[] = [];
  for (const id of candidates) {
    const doc = index.docs[id];
    if (!doc || doc === source || (visible && !visible(doc.path))) continue;
    const other = docVector(index, id);
    let dot = 0;
    for (const [term, w] of vector) dot += w * (other.get(term) ?? 0);
    if (dot > 0)
      hits.push({ path: doc.path, title: doc.title, hash: doc.hash, score: Math.round((dot / (norm * length(other))) * 1000) / 1000 });
  }
  return hits.sort((a, b) => b.score - a.score || (a.path < b.path ? -1 : 1)).slice(0, limit);
}

function docVector(index: SearchIndex, id: number): Vector {
  const out: Vector = new Map();
  const cursor = new TermCursor().open(index.docs[id]!.terms);
  while (cursor.next()) out.set(cursor.id, (1 + Math.log(weightedTf(cursor.tf))) * index.stats.idf(cursor.id));
  return out;
}

/** Only terms of pages the caller may read: a hidden page's word would change every score. */
function textVector(index: SearchIndex, input: { text: string }, visible?: (path: string) => boolean): Vector {
  const counts = new Map<number, number>();
  for (const token of tokenize(input.text)) {
    const id = index.stats.id(token);
    if (id !== undefined) counts.set(id, (counts.get(id) ?? 0) + 1);
  }
  return new Map(
    [...counts]
      .filter(([id]) => index.knows(index.stats.term(id), visible))
      .map(([id, tf]) => [id, (1 + Math.log(tf)) * index.stats.idf(id)]),
  );
}

function length(vector: Vector): number {
  let sum = 0;
  for (const w of vector.values()) sum += w * w;
  return Math.sqrt(sum) || 1;
}
