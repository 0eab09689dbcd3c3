/**
 * The one tokenizer of the knowledge layer: the search index, term statistics, snippets,
 * similarity and ask all split text the same way, so a query term means the same thing
 * everywhere.
 *
 * Words are runs of letters and digits, lower-cased, with Latin/Greek/Cyrillic accents
 * removed ("Café" → "cafe"). Han, kana and Hangul have no spaces between words, so a run
 * of them becomes overlapping character bigrams ("知识管理" → 知识 识管 管理), the usual
 * CJK approach of Lucene's CJKAnalyzer; a lone CJK character stays a unigram.
 */

const WORD = /[\p{L}\p{N}]+/gu;
const CJK = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/u;
const CJK_RUN = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]+/gu;
// Only accents on alphabetic scripts: stripping Japanese dakuten would turn が into か.
const ACCENT = /(?<=[\p{Script=Latin}\p{Script=Greek}\p{Script=Cyrillic}])\p{M}+/gu;
/**
 * Whether `text` has no character past ASCII: such text takes the fast paths (no Unicode
 * classes, no NFKD). A character past ASCII takes two UTF-8 bytes or more (a lone surrogate
 * three), so only ASCII text is as long in bytes as in characters; counting them is ~5×
 * faster on a page body than the regular expression /[\u0080-\uffff]/ that this replaced.
 */
export function isAscii(text: string): boolean {
  return Buffer.byteLength(text) === text.length;
}
/** Longer "words" are hashes, base64 or URLs squashed together: noise in an index. */
export const MAX_TERM_LENGTH = 40;

/** Case- and accent-folds text (full-width forms too); ASCII takes a fast path. */
export function fold(text: string): string {
  if (isAscii(text)) return text.toLowerCase();
  return text.normalize('NFKC').normalize('NFD').replace(ACCENT, '').normalize('NFC').toLowerCase();
}

export function isCjk(term: string): boolean {
  return CJK.test(term);
}

/** Splits one folded word into index terms (itself, or CJK bigrams mixed with the rest). */
function pushWord(word: string, out: string[]): void {
  if (!isCjk(word)) {
    if (word.length <= MAX_TERM_LENGTH) out.push(word);
    return;
  }
  let last = 0;
  for (const m of word.matchAll(CJK_RUN)) {
    if (m.index > last) pushWord(word.slice(last, m.index), out);
    const run = m[0];
    if (run.length === 1) out.push(run);
    for (let i = 0; i + 1 < run.length; i++) out.push(run.slice(i, i + 2));
    last = m.index + run.length;
  }
  if (last < word.length) pushWord(word.slice(last), out);
}

/** Index terms of `text`, in order, with repeats. */
export function tokenize(text: string): string[] {
  const out: string[] = [];
  for (const m of fold(text).matchAll(WORD)) pushWord(m[0], out);
  return out;
}

/** Receives one term of a text as `source.slice(start, end)`, without that string being made. */
export type TermSink = (source: string, start: number, end: number) => void;

/**
 * Feeds `sink` the terms `tokenize(text)` returns, in the same order. ASCII text (most
 * pages) is scanned by char code with no string per token: in ASCII, \p{L}\p{N} are
 * exactly [a-z0-9] once lower-cased, and no word is CJK.
 */
export function scanTerms(text: string, sink: TermSink): void {
  if (!isAscii(text)) {
    for (const term of tokenize(text)) sink(term, 0, term.length);
    return;
  }
  const lower = text.toLowerCase();
  let start = -1;
  for (let i = 0; i <= lower.length; i++) {
    const c = i < lower.length ? lower.charCodeAt(i) : 0;
    if ((c >= 97 && c <= 122) || (c >= 48 && c <= 57)) {
      if (start < 0) start = i;
    } else if (start >= 0) {
      if (i - start <= MAX_TERM_LENGTH) sink(lower, start, i);
      start = -1;
    }
  }
}

/** A word of the original text, where it is, and the terms it yields. */
export interface WordSpan {
  start: number;
  end: number;
  terms: string[];
}

/** Words of the original (unfolded) text with their offsets, for snippets and passages. */
export function wordSpans(text: string): WordSpan[] {
  const spans: WordSpan[] = [];
  for (const m of text.matchAll(WORD)) {
    const terms: string[] = [];
    pushWord(fold(m[0]), terms);
    spans.push({ start: m.index, end: m.index + m[0].length, terms });
  }
  return spans;
}
