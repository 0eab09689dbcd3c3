import matter from 'gray-matter';
import { posix } from 'node:path';

export interface PageLink {
  /** As written for wiki links ("Note", "folder/Note"); vault-relative path for markdown links. */
  target: string;
  kind: 'wiki' | 'markdown';
  /** 1-based line in the file. */
  line: number;
}

/** What parsing a page's bytes yields; everything here derives from the content alone. */
export interface ParsedPage {
  title: string;
  frontmatter: Record<string, unknown>;
  /** Set when the YAML frontmatter does not parse; the page is still served. */
  frontmatterError?: string;
  /** Content after the frontmatter block. */
  body: string;
  /** Line number (1-based) where `body` starts in the file. */
  bodyLine: number;
  tags: string[];
  links: PageLink[];
}

const FENCE = /^\s*(```|~~~)/;

/** True for a line that opens or closes fenced code: every parser of page text skips what is between. */
export function isFenceLine(line: string): boolean {
  return FENCE.test(line);
}
const WIKI = /!?\[\[([^\]\n]+?)\]\]/g;
const MD_LINK = /!?\[[^\]\n]*\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g;
// A tag needs one non-digit so "#1" in prose is not a tag (Obsidian's rule).
const TAG = /(?:^|[\s(])#([\p{L}\p{N}_\-/]*[\p{L}_\-/][\p{L}\p{N}_\-/]*)/gu;
const SCHEME = /^[a-z][a-z0-9+.-]*:/i;

export function titleFromPath(path: string): string {
  return posix.basename(path).replace(/\.md$/, '');
}

function frontmatterTags(value: unknown): string[] {
  const list = Array.isArray(value) ? value : typeof value === 'string' ? value.split(/[,\s]+/) : [];
  return list.filter((t): t is string | number => typeof t === 'string' || typeof t === 'number')
    .map((t) => String(t).replace(/^#/, '').trim())
    .filter(Boolean);
}

function wikiTarget(inner: string): string {
  // [[Target#Heading|Alias]] → "Target"; [[#Heading]] points at the page itself → "".
  return inner.split('|')[0].split('#')[0].trim();
}

function markdownTarget(pagePath: string, href: string): string | undefined {
  if (SCHEME.test(href) || href.startsWith('#') || href.startsWith('/')) return undefined;
  let decoded: string;
  try {
    decoded = decodeURIComponent(href.split('#')[0]);
  } catch {
    return undefined;
  }
  if (!decoded) return undefined;
  const joined = posix.normalize(posix.join(posix.dirname(pagePath), decoded));
  return joined.startsWith('..') ? undefined : joined;
}

/** Scans the body once, skipping fenced code and inline code, for links, tags and the H1. */
function scanBody(pagePath: string, body: string, firstLine: number) {
  const links: PageLink[] = [];
  const tags: string[] = [];
  let heading: string | undefined;
  let inFence = false;
  body.split('\n').forEach((raw, i) => {
    if (isFenceLine(raw)) { inFence = !inFence; return; }
    if (inFence) return;
    // Each regex runs only on lines holding its marker: most lines of prose hold none.
    const line = raw.includes('`') ? raw.replace(/`[^`]*`/g, '') : raw;
    const lineNo = firstLine + i;
    if (heading === undefined && /^# \S/.test(line)) heading = line.slice(2).trim();
    if (line.includes('[[')) {
      for (const m of line.matchAll(WIKI)) {
        const target = wikiTarget(m[1]);
        if (target) links.push({ target, kind: 'wiki', line: lineNo });
      }
    }
    if (line.includes('](')) {
      for (const m of line.matchAll(MD_LINK)) {
        const target = markdownTarget(pagePath, m[1]);
        if (target) links.push({ target, kind: 'markdown', line: lineNo });
      }
    }
    if (!line.includes('#') || /^#{1,6} /.test(line)) return; // a heading's "#" is not a tag
    for (const m of line.matchAll(TAG)) tags.push(m[1]);
  });
  return { links, tags, heading };
}

export function parsePage(path: string, content: string): ParsedPage {
  let frontmatter: Record<string, unknown> = {};
  let frontmatterError: string | undefined;
  let body = content;
  try {
    // Always pass an options object: without one gray-matter caches every input forever.
    const parsed = matter(content, {});
    frontmatter = (parsed.data ?? {}) as Record<string, unknown>;
    body = parsed.content;
  } catch (err) {
    frontmatterError = (err as Error).message.split('\n')[0];
  }
  const bodyLine = content.slice(0, content.length - body.length).split('\n').length;
  const scan = scanBody(path, body, bodyLine);
  const fmTitle = typeof frontmatter.title === 'string' && frontmatter.title.trim() ? frontmatter.title.trim() : undefined;
  const tags = [...new Set([...frontmatterTags(frontmatter.tags), ...scan.tags])];
  return {
    title: fmTitle ?? scan.heading ?? titleFromPath(path),
    frontmatter,
    ...(frontmatterError ? { frontmatterError } : {}),
    body,
    bodyLine,
    tags,
    links: scan.links,
  };
}
