/**
 * Typo suggestions: the closest vocabulary terms within a small edit distance
 * (Damerau–Levenshtein with adjacent swaps), scanning only terms of a similar length.
 * Runs only for query terms the vault does not contain, so its cost is off the hot path.
 */
export function maxEdits(term: string): number {
  return term.length <= 4 ? 1 : 2;
}

export function closeTerms(
  term: string,
  vocabulary: readonly string[],
  accept: (candidate: string) => boolean,
): { term: string; distance: number }[] {
  const limit = maxEdits(term);
  const out: { term: string; distance: number }[] = [];
  for (const candidate of vocabulary) {
    if (Math.abs(candidate.length - term.length) > limit || candidate === term) continue;
    const distance = editDistance(term, candidate, limit);
    if (distance <= limit && accept(candidate)) out.push({ term: candidate, distance });
  }
  return out;
}

/** Optimal-string-alignment distance, giving up (returning limit + 1) once it exceeds `limit`. */
export function editDistance(a: string, b: string, limit: number): number {
  let prev2: number[] = [];
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    let best = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let d = Math.min(prev[j] + 1, row[j - 1] + 1, prev[j - 1] + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d = Math.min(d, prev2[j - 2] + 1);
      row.push(d);
      best = Math.min(best, d);
    }
    if (best > limit) return limit + 1;
    prev2 = prev;
    prev = row;
  }
  return prev[b.length];
}
