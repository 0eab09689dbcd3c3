import { collapse, CollapsedAscii } from './collapsed-text.js';
import { isAscii, wordSpans } from './tokenize.js';

const HEADING = /^\s*#[^\n]*\n/;

/** How long a snippet is, in characters of the page body. */
export const SNIPPET_LENGTH = 180;

/** Below this many characters a body is collapsed whole: mapping positions would not pay. */
const SHORT_BODY = 512;
/** How much collapsed text a window is cut from; a window needing more takes the long way. */
const WINDOW_TEXT = 400;

interface Span {
  start: number;
  end: number;
}

/** Some stretch of the collapsed body: `text` from position `offset` on, out of `length`. */
interface Stretch {
  text: string;
  offset: number;
  length: number;
}

/**
 * A window of the body around the densest cluster of matched terms, with each matched
 * word wrapped in `**…**` (markdown bold, so it renders where the body renders). The body
 * is shown with whitespace runs collapsed to one space; for ASCII text only the window is
 * collapsed (`CollapsedAscii`), with the same result as collapsing it all.
 */
export function snippet(body: string, matches: ReadonlySet<string>): string {
  const rest = body.replace(HEADING, '');
  if (rest.length >= SHORT_BODY && isAscii(rest)) {
    const fast = asciiSnippet(rest, matches);
    if (fast !== undefined) return fast;
  }
  const text = collapse(rest);
  const spans = isAscii(text) ? asciiSpans(text, matches) : wordSpans(text).filter((s) => s.terms.some((t) => matches.has(t)));
  return excerpt({ text, offset: 0, length: text.length }, spans, windowFrom(spans))!;
}

/** The snippet of an ASCII body, or undefined in the rare case its window reaches past `WINDOW_TEXT`. */
function asciiSnippet(raw: string, matches: ReadonlySet<string>): string | undefined {
  const collapsed = new CollapsedAscii(raw);
  if (collapsed.length <= 0) return undefined;
  // A term never holds a space, so it matches the same words before and after collapsing.
  const rawSpans = asciiSpans(raw, matches);
  const starts = collapsed.positions(rawSpans.map((s) => s.start));
  const spans = rawSpans.map((s, i) => ({ start: starts[i], end: starts[i] + s.end - s.start }));
  const from = windowFrom(spans);
  const end = Math.min(collapsed.length, from + WINDOW_TEXT);
  return excerpt({ text: collapsed.slice(from, end), offset: from, length: collapsed.length }, spans, from);
}

/** Where the window's text may begin: 40 characters before the densest cluster. */
function windowFrom(spans: Span[]): number {
  const start = spans.length ? bestWindow(spans.map((s) => s.start)) : 0;
  return Math.max(0, start - 40);
}

/**
 * The snippet from a stretch of the collapsed body holding `windowFrom(spans)` (`start`),
 * or undefined when the stretch ends before the window does.
 */
function excerpt(stretch: Stretch, spans: Span[], start: number): string | undefined {
  const { text, offset, length } = stretch;
  const stretchEnd = offset + text.length;
  let from = start;
  if (from > 0) {
    const space = text.indexOf(' ', from - offset);
    if (space < 0 && stretchEnd < length) return undefined;
    from = space < 0 ? from : offset + space + 1;
  }
  let to = Math.min(length, from + SNIPPET_LENGTH);
  if (to < length) {
    if (to >= stretchEnd) return undefined;
    const space = text.lastIndexOf(' ', to - offset) + offset;
    if (space > from) to = space;
  } else if (to > stretchEnd) return undefined;
  let out = '';
  let at = from;
  for (const s of spans) {
    if (s.start < from || s.end > to) continue;
    out += `${text.slice(at - offset, s.start - offset)}**${text.slice(s.start - offset, s.end - offset)}**`;
    at = s.end;
  }
  out += text.slice(at - offset, to - offset);
  return `${from > 0 ? '…' : ''}${out}${to < length ? '…' : ''}`;
}

/** The whole-word pattern of a set of terms, kept for the next pages of the same query. */
const patterns = new Map<string, RegExp>();
const MAX_PATTERNS = 64;

function wordPattern(matches: ReadonlySet<string>): RegExp {
  const key = [...matches].join(' ');
  let pattern = patterns.get(key);
  if (!pattern) {
    if (patterns.size >= MAX_PATTERNS) patterns.clear();
    const words = [...matches].map((term) => term.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
    // Case-insensitive only within ASCII (no `u` flag): a term matches where the lower-cased text holds it.
    pattern = new RegExp(`(?<![A-Za-z0-9])(?:${words.join('|')})(?![A-Za-z0-9])`, 'gi');
    patterns.set(key, pattern);
  }
  pattern.lastIndex = 0;
  return pattern;
}

/**
 * Where the matched terms occur as whole words in ASCII text, where a term is just the
 * lower-cased word: one case-insensitive scan, not a tokenizing of the body word by word
 * (which made snippets the costliest step of a query). Whole words never overlap, so the
 * scan's matches are all of them.
 */
function asciiSpans(text: string, matches: ReadonlySet<string>): Span[] {
  const spans: Span[] = [];
  if (matches.size === 0) return spans;
  const pattern = wordPattern(matches);
  for (let m = pattern.exec(text); m; m = pattern.exec(text)) spans.push({ start: m.index, end: m.index + m[0].length });
  return spans;
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
