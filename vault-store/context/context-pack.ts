import { excerpt } from './excerpt.js';
import { estimateTokens, truncateToTokens } from './tokens.js';

/** What a pack is built from; every function already hides pages the caller cannot see. */
export interface ContextSource {
  guideSummary: string;
  /** Pages most relevant to the topic, best first. */
  rank: (topic: string, limit: number) => string[];
  read: (path: string) => Promise<{ hash: string; title: string; content: string } | undefined>;
  /** Titles of pages linked from or to the page. */
  neighbours: (path: string) => string[];
}

export interface PackRequest {
  topic: string;
  maxTokens: number;
  /** Pages the caller wants in first, in this order. */
  paths?: string[];
}

export interface PackedPage {
  path: string;
  hash: string;
  title: string;
  tokens: number;
  excerpt: boolean;
}

export interface ContextPack {
  pack: string;
  pages: PackedPage[];
  tokens: number;
}

const CANDIDATES = 20;
/** The guide never takes more than this share of the budget. */
const GUIDE_SHARE = 0.2;
/** Below this many tokens left, an excerpt is not worth its label. */
const MIN_SECTION = 60;
const MAX_NEIGHBOURS = 12;

function label(path: string, hash: string, title: string, isExcerpt: boolean): string {
  return `## ${title}\npath: ${path} · hash: ${hash}${isExcerpt ? ' · excerpt' : ''}\n\n`;
}

/**
 * A markdown bundle for an assistant: the guide's summary, then the requested and most
 * relevant pages, whole while they fit and excerpted around the topic when they don't,
 * each followed by its linked neighbours' titles. Sections are measured with
 * `estimateTokens` and the total never exceeds `maxTokens`. Same vault, same request,
 * same pack.
 */
export async function buildContextPack(source: ContextSource, request: PackRequest): Promise<ContextPack> {
  const parts: string[] = [];
  let left = request.maxTokens;
  const add = (text: string) => {
    parts.push(text);
    left -= estimateTokens(text);
  };
  add(truncateToTokens(`# Context: ${request.topic}\n\n`, left));
  const guide = truncateToTokens(source.guideSummary, Math.floor(request.maxTokens * GUIDE_SHARE));
  if (guide) add(`## Vault guide (summary)\n\n${guide}\n\n`);

  const pages: PackedPage[] = [];
  const order = [...new Set([...(request.paths ?? []), ...source.rank(request.topic, CANDIDATES)])];
  for (const path of order) {
    if (left < MIN_SECTION) break;
    const page = await source.read(path);
    if (!page) continue;
    const names = source.neighbours(path).slice(0, MAX_NEIGHBOURS);
    const linked = names.length ? `\nLinked: ${names.map((n) => `[[${n}]]`).join(', ')}\n` : '';
    const whole = `${label(path, page.hash, page.title, false)}${page.content.trimEnd()}\n${linked}\n`;
    let section = whole;
    if (estimateTokens(whole) > left) {
      const head = label(path, page.hash, page.title, true);
      const room = left - estimateTokens(head) - estimateTokens(linked) - 2;
      const body = room > 0 ? excerpt(page.content, request.topic, room) : '';
      if (!body) continue;
      section = `${head}${body}\n${linked}\n`;
    }
    add(section);
    pages.push({ path, hash: page.hash, title: page.title, tokens: estimateTokens(section), excerpt: section !== whole });
  }
  const pack = parts.join('');
  return { pack, pages, tokens: estimateTokens(pack) };
}
