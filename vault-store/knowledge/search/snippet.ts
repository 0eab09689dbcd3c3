import { wordSpans } from './tokenize.js';

/** How long a snippet is, in characters of the page body. */
export const SNIPPET_LENGTH = 180;

/**
 * A window of the body around the densest cluster of matched terms, with each matched
 * word wrapped in `**…**` (markdown bold, so it renders where the body renders).
 */
export function snippet(body: string, matches: ReadonlySet<string>): string {
  const text = body.replace(/^\s*#[^\n]*\n/, '').replace(/\s+/g, ' ').trim();
  const spans = wordSpans(text).filter((s) => s.terms.some((t) => matches.has(t)));
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
