import { isAscii, wordSpans } from './tokenize.js';

const HEADING = /^\s*#[^\n]*\n/;
/**
 * Whitespace runs to collapse into one space: what /\s+/ matches, minus the single spaces
 * already right (the bulk of them: replacing those too made this a third of a snippet).
 */
const SPACING = /\s{2,}|[^\S ]/g;

/** How long a snippet is, in characters of the page body. */
export const SNIPPET_LENGTH = 180;
/** How far apart (in characters shown) the words of one cluster may start. */
const REACH = SNIPPET_LENGTH - 60;
/** How much text is shown before the densest cluster. */
const LEAD = 40;

interface Span {
  start: number;
  end: number;
}

/**
 * A window of the body around the densest cluster of matched terms, with each matched
 * word wrapped in `**…**` (markdown bold, so it renders where the body renders). The body
 * is shown with whitespace runs collapsed to one space. ASCII text is never collapsed
 * whole: its words are found in it as it is, and only the distances between them and the
 * window itself are measured in collapsed characters (see `excerpt`). `pattern` is
 * `wordPattern(matches)`, when the caller made it for several pages.
 */
export function snippet(body: string, matches: ReadonlySet<string>, pattern?: RegExp): string {
  // The body is read past its heading, never sliced: loops over a sliced string were a third slower.
  const begin = HEADING.exec(body)?.[0].length ?? 0;
  if (isAscii(body)) return excerpt(body, asciiSpans(body, begin, matches, pattern), begin);
  const text = body.slice(begin).replace(SPACING, ' ').trim();
  const spans = isAscii(text) ? asciiSpans(text, 0, matches, pattern) : wordSpans(text).filter((s) => s.terms.some((t) => matches.has(t)));
  return excerpt(text, spans, 0);
}

/** The characters /\s/ matches in ASCII text (the only whitespace left in collapsed text). */
const isSpace = (code: number) => code === 32 || (code >= 9 && code <= 13);

/**
 * The pattern finding `matches` as whole words in ASCII text. A query makes it once per set
 * of terms its pages hold and hands it to each snippet (see `snippet`), so no cache of
 * patterns across queries is kept: spelling a cache key out per page was a sixth of a
 * snippet's own work, and a fresh pattern costs ~0.6 µs.
 */
export function wordPattern(matches: ReadonlySet<string>): RegExp {
  const words = [...matches].map((term) => term.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  // Case-insensitive only within ASCII (no `u` flag): a term matches where the lower-cased text holds it.
  return new RegExp(`(?<![A-Za-z0-9])(?:${words.join('|')})(?![A-Za-z0-9])`, 'gi');
}

/**
 * Where the matched terms occur as whole words in ASCII text from `begin` on, where a term
 * is just the lower-cased word: one case-insensitive scan, not a tokenizing of the body word
 * by word (which made snippets the costliest step of a query), nor `indexOf` per term in the
 * lower-cased text (twice as slow). Whole words never overlap, so the scan's matches are all
 * of them.
 */
function asciiSpans(text: string, begin: number, matches: ReadonlySet<string>, given?: RegExp): Span[] {
  const spans: Span[] = [];
  if (matches.size === 0) return spans;
  const pattern = given ?? wordPattern(matches);
  pattern.lastIndex = begin;
  for (let m = pattern.exec(text); m; m = pattern.exec(text)) spans.push({ start: m.index, end: m.index + m[0].length });
  return spans;
}

/**
 * The snippet of `text` from `begin` on (ASCII whitespace only), shown collapsed: every
 * whitespace run one space, trimmed. It is what cutting the collapsed text would give (the
 * densest cluster, `LEAD` characters before it, then `SNIPPET_LENGTH` to a word's end, `…`
 * where text is left out), but the text is never collapsed whole: positions are counted in
 * collapsed characters by walking from a matched word, and only the window is collapsed.
 */
function excerpt(text: string, spans: Span[], begin: number): string {
  let first = begin;
  while (first < text.length && isSpace(text.charCodeAt(first))) first++;
  let last = text.length;
  while (last > first && isSpace(text.charCodeAt(last - 1))) last--;
  // Walk back LEAD characters from the cluster; reaching the text's start shows it all.
  let from = first;
  let cut = false;
  if (spans.length) {
    let at = spans[densest(text, spans)].start;
    for (let back = 0; back < LEAD && at > first; back++) at = previousChar(text, at);
    // Past the start, the window begins after the first space, on a whole word.
    if (at > first) [cut, from] = [true, afterSpace(text, at, last)];
  }
  let to = from;
  let shown = 0;
  let space = -1;
  for (; shown < SNIPPET_LENGTH && to < last; shown++) {
    if (!isSpace(text.charCodeAt(to))) to++;
    else for (space = to++; isSpace(text.charCodeAt(to));) to++;
  }
  const more = to < last;
  // Cut short, the window ends at its last space (a space right after it counts).
  if (more && !isSpace(text.charCodeAt(to)) && space > from) to = space;
  let out = cut ? '…' : '';
  let at = from;
  for (const s of spans) {
    if (s.start < from || s.end > to) continue;
    out += `${text.slice(at, s.start).replace(SPACING, ' ')}**${text.slice(s.start, s.end)}**`;
    at = s.end;
  }
  return `${out}${text.slice(at, to).replace(SPACING, ' ')}${more ? '…' : ''}`;
}

/**
 * Index of the span starting the window holding the most spans (ties: the earliest), their
 * starts measured in collapsed characters. Distances between neighbours are counted only up
 * to REACH + 1: a longer gap splits clusters whatever its length.
 */
function densest(text: string, spans: Span[]): number {
  const at = new Array<number>(spans.length);
  at[0] = 0;
  for (let i = 1; i < spans.length; i++) at[i] = at[i - 1] + collapsedLength(text, spans[i - 1].start, spans[i].start, REACH + 1);
  let best = 0;
  let bestCount = 0;
  for (let i = 0, j = 0; i < spans.length; i++) {
    while (at[i] - at[j] > REACH) j++;
    if (i - j + 1 > bestCount) [bestCount, best] = [i - j + 1, j];
  }
  return best;
}

/** Characters `text` from `from` to `to` (outside whitespace runs) shows when collapsed, counted up to `cap`. */
function collapsedLength(text: string, from: number, to: number, cap: number): number {
  let shown = 0;
  for (let i = from; i < to && shown < cap; shown++) {
    if (!isSpace(text.charCodeAt(i++))) continue;
    while (i < to && isSpace(text.charCodeAt(i))) i++;
  }
  return shown;
}

/** Where the collapsed character before `at` starts: a whitespace run shows as its first character. */
function previousChar(text: string, at: number): number {
  let before = at - 1;
  if (isSpace(text.charCodeAt(before))) while (before > 0 && isSpace(text.charCodeAt(before - 1))) before--;
  return before;
}

/** The first word after the first whitespace run at or after `at` (before `last`), else `at`. */
function afterSpace(text: string, at: number, last: number): number {
  let i = at;
  while (i < last && !isSpace(text.charCodeAt(i))) i++;
  if (i === last) return at;
  while (isSpace(text.charCodeAt(i))) i++;
  return i;
}
