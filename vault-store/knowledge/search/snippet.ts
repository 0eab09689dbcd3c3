import { isAscii, wordSpans } from './tokenize.js';

const ALNUM = /[A-Za-z0-9]/;

/**
 * Whitespace runs to collapse into one space: what /\s+/ matches, minus the single spaces
 * already right (the bulk of them: replacing those too made this a third of a snippet).
 */
const SPACING = /\s{2,}|[^\S ]/g;

/** How long a snippet is, in characters of the page body. */
export const SNIPPET_LENGTH = 180;

/**
 * A window of the body around the densest cluster of matched terms, with each matched
 * word wrapped in `**…**` (markdown bold, so it renders where the body renders).
 */
export function snippet(body: string, matches: ReadonlySet<string>): string {
  const text = body
    .replace(/^\s*#[^\n]*\n/, '')
    .replace(SPACING, ' ')
    .trim();
  const spans = matchSpans(text, matches);
  const start = spans.length ? bestWindow(spans.map((s) => s.start)) : 0;
  let from = Math.max(0, start - 40);
  if (from > 0) from = text.indexOf(' ', from) + 1 || from;
  let to = Math.min(text.length, from + SNIPPET_LENGTH);
  if (to < text.length) to = text.lastIndexOf(' ', to) > from ? text.lastIndexOf(' ', to) : to;
  let out = '';
  let at = from;
  for (const s of spans) {
    if (s.start < from || s.end > to) continue;
    out += `${text.slice(at, s.start)}**${text.slice(s.start, s.end)}**`;
    at = s.end;
  }
  out += text.slice(at, to);
  return `${from > 0 ? '…' : ''}${out}${to < text.length ? '…' : ''}`;
}

/**
 * Where the matched terms occur as whole words. Tokenizing a long body word by word is
 * what made snippets the costliest step of a query; ASCII text (where a term is just the
 * lower-cased word) is searched with indexOf instead, with the same result.
 */
function matchSpans(text: string, matches: ReadonlySet<string>): { start: number; end: number }[] {
  if (!isAscii(text)) return wordSpans(text).filter((s) => s.terms.some((t) => matches.has(t)));
  const lower = text.toLowerCase();
  const spans: { start: number; end: number }[] = [];
  for (const term of matches) {
    for (let at = lower.indexOf(term); at >= 0; at = lower.indexOf(term, at + 1)) {
      const end = at + term.length;
      if ((at === 0 || !ALNUM.test(lower[at - 1])) && (end === lower.length || !ALNUM.test(lower[end]))) spans.push({ start: at, end });
    }
  }
  return spans.sort((a, b) => a.start - b.start);
}

/** Start offset of the window holding the most matches (ties: the earliest). */
function bestWindow(starts: number[]): number {
  let best = starts[0];
  let bestCount = 0;
  let j = 0;
  for (let i = 0; i < starts.length; i++) {
    while (starts[i] - starts[j] > SNIPPET_LENGTH - 60) j++;
    if (i - j + 1 > bestCount) {
      bestCount = i - j + 1;
      best = starts[j];
    }
  }
  return best;
}
