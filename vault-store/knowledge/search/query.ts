import { isAscii, MAX_TERM_LENGTH, scanTerms, tokenize } from './tokenize.js';

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

/** What lies between two neighbouring terms of ASCII text: separators, and runs too long to be terms. */
const GAP = `[^a-z0-9]+(?:[a-z0-9]{${MAX_TERM_LENGTH + 1},}[^a-z0-9]+)*`;

/**
 * `containsPhrase(text, terms)` for one phrase and many texts. A phrase query at 100k pages
 * checks thousands of bodies; streaming each one's terms cost ~28 µs a body. In ASCII text
 * (most pages) a term is a lower-cased run of [a-z0-9] of at most MAX_TERM_LENGTH, so the
 * phrase is one case-blind regular expression, ~5× faster with the same answers: the words
 * whole (no letter or digit on either side) with only separators and overlong runs, which
 * the tokenizer skips, between them. Its classes are disjoint, so it runs in linear time.
 */
export function phraseTest(terms: string[]): (text: string) => boolean {
  const ascii = terms.every((t) => /^[a-z0-9]+$/.test(t)) ? new RegExp(`(?<![a-z0-9])${terms.join(GAP)}(?![a-z0-9])`, 'i') : undefined;
  // ASCII text holds no other terms: a phrase with one is not in it.
  return (text) => (isAscii(text) ? ascii !== undefined && ascii.test(text) : containsPhrase(text, terms));
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
