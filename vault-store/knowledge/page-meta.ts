import { parsePage, type PageLink, type ParsedPage } from '../page.js';
import { isAscii } from './search/tokenize.js';
import { own } from './own-string.js';
import { pageTasks, type Task } from './tasks/task.js';

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
  /**
   * The page's links in one JSON string (`pageLinks` reads them): an object per link cost
   * half of all the metadata (7.9 of 14.9 MB at 10k pages), the string a fifth of that.
   */
  packedLinks: string;
  /** How many of `words` are in headings: a page with no others has no text. */
  headingWords: number;
  /** Line of the level-1 heading the title is taken from, when it is taken from one. */
  titleLine?: number;
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
  if (!isAscii(text)) return text.match(/[\p{L}\p{N}]+/gu)?.length ?? 0;
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

/** Headings with text, in file order. */
function headingsOf(parsed: ParsedPage): Heading[] {
  return parsed.headings.filter((h) => h.text !== '').map(({ level, text, line }) => ({ level, text, line }));
}

/** The headings of a page's text (for its outline; the index keeps only what lint needs). */
export function pageHeadings(path: string, text: string): Heading[] {
  return headingsOf(parsePage(path, text));
}

// Flat [target, kind, line, …]: JSON keeps any target intact. `own` flattens the result,
// which JSON.stringify builds from parts: as built, the strings held twice their text.
function packLinks(links: PageLink[]): string {
  return links.length ? own(JSON.stringify(links.flatMap((l) => [l.target, l.kind === 'wiki' ? 0 : 1, l.line]))) : '';
}

export function pageLinks(meta: Pick<PageMeta, 'packedLinks'>): PageLink[] {
  if (!meta.packedLinks) return [];
  const flat = JSON.parse(meta.packedLinks) as (string | number)[];
  const links: PageLink[] = [];
  for (let i = 0; i < flat.length; i += 3) {
    links.push({ target: flat[i] as string, kind: flat[i + 1] === 0 ? 'wiki' : 'markdown', line: flat[i + 2] as number });
  }
  return links;
}

/** The page's metadata, and what other parts of the index take from the same parse: its body, front-matter and tasks. */
export function pageMeta(
  path: string,
  hash: string,
  bytes: Uint8Array,
): PageMeta & { body: string; frontmatter: Record<string, unknown>; tasks: Task[] } {
  const text = decoder.decode(bytes);
  const parsed = parsePage(path, text);
  const headings = headingsOf(parsed);
  const titleLine = headings.find((h) => h.level === 1 && h.text === parsed.title)?.line;
  return {
    path,
    hash,
    title: own(parsed.title),
    tags: parsed.tags.map(own),
    aliases: aliasesOf(parsed.frontmatter.aliases).map(own),
    packedLinks: packLinks(parsed.links),
    headingWords: headings.reduce((n, h) => n + countWords(h.text), 0),
    ...(titleLine === undefined ? {} : { titleLine }),
    size: bytes.byteLength,
    words: countWords(parsed.body),
    ...(parsed.frontmatterError ? { frontmatterError: parsed.frontmatterError } : {}),
    body: parsed.body,
    frontmatter: parsed.frontmatter,
    tasks: pageTasks(text, { headings: parsed.headings, tags: parsed.tagSpans }, parsed.tasks),
  };
}
