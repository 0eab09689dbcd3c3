import { QuireError } from '../errors.js';
import type { SearchIndex } from './search/search-index.js';
import { tokenize } from './search/tokenize.js';
import { scanMarkdown } from '../markdown/scan.js';

/** `max_pages` bounds: reading more pages makes answers slower, not better. */
export const MAX_ASK_PAGES = 20;
export const DEFAULT_ASK_PAGES = 5;
/** Passages quoted in an extractive answer. */
const ANSWER_PASSAGES = 3;
const PASSAGES_PER_PAGE = 2;

// Question words carry no topic; dropping them keeps retrieval on the content words.
const STOPWORDS = new Set(
  (
    'a an and are as at be by can could did do does for from has have how i if in is it its me my of on or ' +
    'should so that the their there these this to was we were what when where which who whom whose why will with would you your'
  ).split(' '),
);

export interface Passage {
  path: string;
  hash: string;
  title: string;
  text: string;
  score: number;
}

export interface AskInput {
  question: string;
  maxPages?: number;
  visible?: (path: string) => boolean;
}

export interface AskAnswer {
  answer: string;
  citations: { path: string; hash: string; excerpt: string }[];
  pages_used: number;
}

/**
 * The retrieval half of ask: the best pages for the question's content words, cut into
 * paragraphs (long ones into sentences), each scored by the idf of the question terms it
 * holds. The server feeds these to an LLM when one is configured.
 */
export function retrievePassages(index: SearchIndex, input: AskInput): { passages: Passage[]; pagesUsed: number } {
  const maxPages = input.maxPages ?? DEFAULT_ASK_PAGES;
  if (!Number.isInteger(maxPages) || maxPages < 1 || maxPages > MAX_ASK_PAGES) {
    throw new QuireError('INVALID_REQUEST', `max_pages must be an integer from 1 to ${MAX_ASK_PAGES}`, {
      max_pages: maxPages,
      max: MAX_ASK_PAGES,
    });
  }
  const terms = [...new Set(tokenize(input.question))].filter((t) => !STOPWORDS.has(t) && index.knows(t, input.visible));
  if (terms.length === 0) return { passages: [], pagesUsed: 0 };
  // A trailing space: the question's last word is whole, not a prefix being typed.
  const pages = index.search(`${terms.join(' ')} `, { limit: maxPages, ...(input.visible ? { visible: input.visible } : {}) }).results;
  const weights = new Map(terms.map((t) => [t, index.stats.idf(index.stats.id(t)!)]));
  const passages: Passage[] = [];
  pages.forEach((page, rank) => {
    const doc = index.get(page.path)!;
    for (const text of splitPassages(index.body(doc))) {
      const present = new Set(tokenize(text).filter((t) => weights.has(t)));
      if (present.size === 0) continue;
      let score = 0;
      for (const t of present) score += weights.get(t)!;
      // Earlier pages ranked better as a whole; that breaks ties between similar passages.
      passages.push({ path: doc.path, hash: doc.hash, title: doc.title, text, score: score * (1 - rank * 0.02) });
    }
  });
  return { passages: passages.sort((a, b) => b.score - a.score), pagesUsed: pages.length };
}

/** Extractive answer: the best passages, quoted with numbered citations. */
export function ask(index: SearchIndex, input: AskInput): AskAnswer {
  const { passages, pagesUsed } = retrievePassages(index, input);
  const chosen: Passage[] = [];
  const perPage = new Map<string, number>();
  for (const p of passages) {
    if (chosen.length === ANSWER_PASSAGES) break;
    if ((perPage.get(p.path) ?? 0) >= PASSAGES_PER_PAGE) continue;
    perPage.set(p.path, (perPage.get(p.path) ?? 0) + 1);
    chosen.push(p);
  }
  if (chosen.length === 0) return { answer: 'No page in the vault answers this question.', citations: [], pages_used: pagesUsed };
  return {
    answer: chosen.map((p, i) => `${p.text} [${i + 1}]`).join('\n\n'),
    citations: chosen.map((p) => ({ path: p.path, hash: p.hash, excerpt: p.text })),
    pages_used: pagesUsed,
  };
}

const MAX_PASSAGE = 400;

/**
 * The body as prose for passages, read with the one markdown scanner: fenced code is cut out
 * (code is no answer; a blank line in its place keeps the paragraphs around it apart) and a
 * heading line becomes its text.
 */
function prose(body: string): string {
  const { fences, headings } = scanMarkdown(body);
  const cuts = [
    ...fences.map((f) => ({ start: f.start, end: f.end, text: '\n\n' })),
    ...headings.map((h) => ({ start: h.start, end: h.end, text: h.text })),
  ];
  cuts.sort((a, b) => a.start - b.start);
  let out = '';
  let at = 0;
  for (const cut of cuts) {
    out += body.slice(at, cut.start) + cut.text;
    at = cut.end;
  }
  return out + body.slice(at);
}

function splitPassages(body: string): string[] {
  const out: string[] = [];
  for (const block of prose(body).split(/\n\s*\n/)) {
    const text = block.replace(/\s+/g, ' ').trim();
    if (!text) continue;
    if (text.length <= MAX_PASSAGE) out.push(text);
    else out.push(...text.split(/(?<=[.!?])\s+/).filter(Boolean));
  }
  return out;
}
