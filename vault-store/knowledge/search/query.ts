import { tokenize } from './tokenize.js';

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

/** True when `terms` occur consecutively in `tokens`. */
export function containsPhrase(tokens: string[], terms: string[]): boolean {
  outer: for (let i = 0; i + terms.length <= tokens.length; i++) {
    for (let j = 0; j < terms.length; j++) if (tokens[i + j] !== terms[j]) continue outer;
    return true;
  }
  return false;
}
