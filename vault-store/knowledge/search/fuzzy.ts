import type { TermFilter } from './saved-terms.js';

/**
 * Typo suggestions: the closest vocabulary terms within a small edit distance
 * (Damerau–Levenshtein with adjacent swaps), scanning only terms of a similar length.
 * Runs only for query terms the vault does not contain — any query can ask for it, so each
 * candidate is first bounded by its letters (cheap), and only the few that pass get the
 * distance, computed in a band of reused rows.
 */
export function maxEdits(term: string): number {
  return term.length <= 4 ? 1 : 2;
}

const BUCKETS = 64;

/** Letter counts folded into 64 buckets: folding only lowers the bound, so it stays a bound. */
function letters(term: string, into: Int16Array): Int16Array {
  into.fill(0);
  for (let i = 0; i < term.length; i++) into[term.charCodeAt(i) & (BUCKETS - 1)]++;
  return into;
}

/**
 * A lower bound of the edit distance: an insertion or deletion changes the letter counts by
 * one, a substitution by two, a swap by none.
 */
function letterBound(query: Int16Array, candidate: string, scratch: Int16Array): number {
  scratch.set(query);
  for (let i = 0; i < candidate.length; i++) scratch[candidate.charCodeAt(i) & (BUCKETS - 1)]--;
  return boundOf(scratch);
}

/** `letterBound` of an ASCII candidate read as bytes (a byte is then its char code). */
function asciiLetterBound(query: Int16Array, bytes: Uint8Array, start: number, end: number, scratch: Int16Array): number {
  scratch.set(query);
  for (let i = start; i < end; i++) scratch[bytes[i] & (BUCKETS - 1)]--;
  return boundOf(scratch);
}

function boundOf(scratch: Int16Array): number {
  let diff = 0;
  for (let i = 0; i < BUCKETS; i++) diff += Math.abs(scratch[i]);
  return Math.ceil(diff / 2);
}

/**
 * What a typo fix of `term` may be, told from a candidate's length and, for a saved ASCII
 * term, its letters: a vocabulary skips the rest unread (see SavedTerms.admits).
 */
export function typoFilter(term: string): TermFilter {
  const limit = maxEdits(term);
  const query = letters(term, new Int16Array(BUCKETS));
  const scratch = new Int16Array(BUCKETS);
  return {
    min: term.length - limit,
    max: term.length + limit,
    ascii: (bytes, start, end) => asciiLetterBound(query, bytes, start, end, scratch) <= limit,
  };
}

export function closeTerms(
  term: string,
  vocabulary: Iterable<string>,
  accept: (candidate: string) => boolean,
): { term: string; distance: number }[] {
  const limit = maxEdits(term);
  const query = letters(term, new Int16Array(BUCKETS));
  const scratch = new Int16Array(BUCKETS);
  const rows = new EditRows(term.length + limit + 1);
  const out: { term: string; distance: number }[] = [];
  for (const candidate of vocabulary) {
    if (Math.abs(candidate.length - term.length) > limit || candidate === term) continue;
    if (letterBound(query, candidate, scratch) > limit) continue;
    const distance = rows.distance(term, candidate, limit);
    if (distance <= limit && accept(candidate)) out.push({ term: candidate, distance });
  }
  return out;
}

/** Optimal-string-alignment distance, giving up (returning limit + 1) once it exceeds `limit`. */
export function editDistance(a: string, b: string, limit: number): number {
  return new EditRows(b.length + 1).distance(a, b, limit);
}

/** Three DP rows reused across candidates: allocating rows was most of the cost of a scan. */
class EditRows {
  private readonly rows: [Int32Array, Int32Array, Int32Array];

  constructor(size: number) {
    this.rows = [new Int32Array(size), new Int32Array(size), new Int32Array(size)];
  }

  distance(a: string, b: string, limit: number): number {
    if (b.length + 1 > this.rows[0].length) return new EditRows(b.length + 1).distance(a, b, limit);
    let [prev2, prev, row] = this.rows;
    for (let j = 0; j <= b.length; j++) prev[j] = j;
    for (let i = 1; i <= a.length; i++) {
      row[0] = i;
      let best = i;
      for (let j = 1; j <= b.length; j++) {
        const cost = a[i - 1] === b[j - 1] ? 0 : 1;
        let d = Math.min(prev[j] + 1, row[j - 1] + 1, prev[j - 1] + cost);
        if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d = Math.min(d, prev2[j - 2] + 1);
        row[j] = d;
        if (d < best) best = d;
      }
      if (best > limit) return limit + 1;
      const oldest = prev2;
      prev2 = prev;
      prev = row;
      row = oldest;
    }
    return prev[b.length];
  }
}
