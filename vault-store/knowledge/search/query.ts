import { scanTerms, tokenize } from './tokenize.js';

/**
 * One clause of a query: a word, a `"quoted phrase"` or a `prefix*`. A word that
 * tokenizes to several terms ("e-mail", CJK bigrams) is one clause whose terms are scored
 * together; only quoted phrases must also appear side by side.
 */
export interface Clause {
  terms: string[];
  phrase: boolean;
  /** `explicit`: written as `foo*`; `typing`: the last word while the user is still typing. */
  prefix: 'none' | 'explicit' | 'typing';
}

const CHUNK = /"([^"]*)"?|(\S+)/g;

export function parseQuery(query: string): Clause[] {
  const clauses: Clause[] = [];
  for (const m of query.matchAll(CHUNK)) {
    if (m[1] !== undefined) {
      const terms = tokenize(m[1]);
      if (terms.length) clauses.push({ terms, phrase: terms.length > 1, prefix: 'none' });
      continue;
    }
    const terms = tokenize(m[2]);
    if (terms.length) clauses.push({ terms, phrase: false, prefix: m[2].endsWith('*') ? 'explicit' : 'none' });
  }
  // Search-as-you-type: a query that does not end in a space may end in half a word.
  const last = clauses[clauses.length - 1];
  if (last && last.prefix === 'none' && !last.phrase && /[\p{L}\p{N}]$/u.test(query) && last.terms[last.terms.length - 1].length >= 3) {
    last.prefix = 'typing';
  }
  return clauses;
}

/**
 * True when `terms` occur consecutively among the terms of `text`. Streams the text's terms
 * (no array of strings: a phrase query may check thousands of page bodies), keeping every
 * partial match alive so repeats like "a a b" in "a a a b" are found.
 */
export function containsPhrase(text: string, terms: string[]): boolean {
  let partial: number[] = [];
  let found = false;
  scanTerms(text, (source, start, end) => {
    if (found) return;
    if (partial.length === 0 && !isTerm(terms[0], source, start, end)) return;
    const next: number[] = [];
    for (const k of partial) if (isTerm(terms[k], source, start, end)) next.push(k + 1);
    if (isTerm(terms[0], source, start, end)) next.push(1);
    found = next.includes(terms.length);
    partial = next;
  });
  return found;
}

function isTerm(term: string, source: string, start: number, end: number): boolean {
  return term.length === end - start && source.startsWith(term, start);
}
