import { parsePage, type PageLink } from '../page.js';
import { NON_ASCII } from './search/tokenize.js';

export interface Heading {
  level: number;
  text: string;
  /** 1-based line of the heading in the file. */
  line: number;
}

/**
 * Everything derived data needs to know about one page without re-reading it. Built from
 * the page's bytes alone, so it can be cached by blob id and persisted with the index.
 */
export interface PageMeta {
  path: string;
  hash: string;
  title: string;
  tags: string[];
  /** Frontmatter `aliases` (Obsidian resolves links by alias too). */
  aliases: string[];
  links: PageLink[];
  headings: Heading[];
  size: number;
  words: number;
  frontmatterError?: string;
}

const decoder = new TextDecoder('utf-8');

function aliasesOf(value: unknown): string[] {
  const list = Array.isArray(value) ? value : typeof value === 'string' ? [value] : [];
  return list.filter((a): a is string => typeof a === 'string' && a.trim() !== '').map((a) => a.trim());
}

/** Runs of letters and digits; in ASCII text that is [A-Za-z0-9], counted without a regex match per word. */
function countWords(text: string): number {
  if (NON_ASCII.test(text)) return text.match(/[\p{L}\p{N}]+/gu)?.length ?? 0;
  let words = 0;
  let inWord = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    const letter = c | 0x20; // folds A-Z onto a-z and maps nothing else there
    const word = (letter >= 97 && letter <= 122) || (c >= 48 && c <= 57);
    if (word && !inWord) words += 1;
    inWord = word;
  }
  return words;
}

/**
 * A copy of `s` that does not point into the text it was cut from. V8 keeps a substring as a
 * slice of its parent, so a title or a link target held for the life of the index pinned the
 * whole page text (most of the metadata's memory at 10k pages). A JSON round trip makes a
 * fresh flat string.
 */
function own(s: string): string {
  return s.length < 13 ? s : (JSON.parse(JSON.stringify(s)) as string);
}

export function pageMeta(path: string, hash: string, bytes: Uint8Array): PageMeta & { body: string } {
  const text = decoder.decode(bytes);
  const parsed = parsePage(path, text);
  const words = countWords(parsed.body);
  return {
    path,
    hash,
    title: own(parsed.title),
    tags: parsed.tags.map(own),
    aliases: aliasesOf(parsed.frontmatter.aliases).map(own),
    links: parsed.links.map(({ target, kind, line }) => ({ target: own(target), kind, line })),
    headings: parsed.headings.filter((h) => h.text !== '').map(({ level, text, line }) => ({ level, text: own(text), line })),
    size: bytes.byteLength,
    words,
    ...(parsed.frontmatterError ? { frontmatterError: parsed.frontmatterError } : {}),
    body: parsed.body,
  };
}
