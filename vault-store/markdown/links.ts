import { isSpace } from './chars.js';
import { ForwardFinder } from './forward-finder.js';

export interface LinkSpan {
  kind: 'wiki' | 'markdown';
  /** `![[…]]` or `![…](…)`. */
  embed: boolean;
  /** Offsets of the whole link, its `!` included. */
  start: number;
  end: number;
  /** What the link points at, as written: a wiki link's text before `|` or `#` (spaces kept), a markdown link's href. */
  target: string;
  targetStart: number;
  targetEnd: number;
  /** 1-based line in the file. */
  line: number;
}

/** Where a line sits in the text, for turning line positions into text offsets. */
export interface LineAt {
  offset: number;
  line: number;
}

function span(
  text: string,
  at: LineAt,
  kind: LinkSpan['kind'],
  start: number,
  end: number,
  targetStart: number,
  targetEnd: number,
): LinkSpan {
  const embed = start > 0 && text[start - 1] === '!';
  return {
    kind,
    embed,
    start: at.offset + start - (embed ? 1 : 0),
    end: at.offset + end,
    target: text.slice(targetStart, targetEnd),
    targetStart: at.offset + targetStart,
    targetEnd: at.offset + targetEnd,
    line: at.line,
  };
}

const endsHref = (code: number) => code === 0x29 || isSpace(code);
const notSpace = (code: number) => !isSpace(code);

/** `[[inner]]`: inner is one or more characters, none of them `]`. */
export function wikiLinks(text: string, at: LineAt, out: LinkSpan[]): void {
  const closes = new ForwardFinder(text, ']');
  for (let open = text.indexOf('[['); open >= 0;) {
    const close = closes.from(open + 2);
    if (close < 0) return;
    if (close === open + 2 || close + 1 === text.length || text[close + 1] !== ']') {
      open = text.indexOf('[[', close + 1); // every `[[` before this `]` fails the same way
      continue;
    }
    let targetEnd = open + 2;
    while (targetEnd < close && text[targetEnd] !== '|' && text[targetEnd] !== '#') targetEnd++;
    out.push(span(text, at, 'wiki', open, close + 2, open + 2, targetEnd));
    open = text.indexOf('[[', close + 2);
  }
}

/**
 * `[text](href)` or `[text](href "title")`: text holds no `]`, href is one or more
 * characters that are neither `)` nor whitespace. Every `[` before the same `]` shares one
 * outcome, so each `](` is tried once, and the finders below are only ever asked further on.
 */
export function markdownLinks(text: string, at: LineAt, out: LinkSpan[]): void {
  const closes = new ForwardFinder(text, ']');
  const hrefEnds = new ForwardFinder(text, endsHref);
  const titles = new ForwardFinder(text, notSpace);
  const quotes = new ForwardFinder(text, '"');
  for (let open = text.indexOf('['); open >= 0;) {
    const close = closes.from(open + 1);
    if (close < 0) return;
    const href = close + 2;
    const stop = href < text.length && text[close + 1] === '(' ? hrefEnds.from(href) : -1;
    let end = -1;
    if (stop > href && text[stop] === ')') end = stop + 1;
    else if (stop > href) {
      const quote = titles.from(stop);
      const closing = quote >= 0 && text[quote] === '"' ? quotes.from(quote + 1) : -1;
      if (closing >= 0 && closing + 1 < text.length && text[closing + 1] === ')') end = closing + 2;
    }
    if (end < 0) {
      open = text.indexOf('[', close + 1);
      continue;
    }
    out.push(span(text, at, 'markdown', open, end, href, stop));
    open = text.indexOf('[', end);
  }
}
