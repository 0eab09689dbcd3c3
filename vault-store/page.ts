import { posix } from 'node:path';
import { readFrontmatter } from './markdown/frontmatter.js';
import { scanMarkdown, type HeadingSpan, type TagSpan, type TaskSpan } from './markdown/scan.js';

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
  /** Set when the frontmatter is not read (not YAML, invalid, too large); the page is still served. */
  frontmatterError?: string;
  /** Content after the frontmatter block. */
  body: string;
  tags: string[];
  links: PageLink[];
  /** ATX headings outside fenced code, empty ones (a bare `##`) included. */
  headings: HeadingSpan[];
  /** Task items outside fenced code, offsets in the whole text; their tags index `tagSpans`. */
  tasks: TaskSpan[];
  tagSpans: TagSpan[];
}

const SCHEME = /^[a-z][a-z0-9+.-]*:/i;

export function titleFromPath(path: string): string {
  return posix.basename(path).replace(/\.md$/, '');
}

function frontmatterTags(value: unknown): string[] {
  const list = Array.isArray(value) ? value : typeof value === 'string' ? value.split(/[,\s]+/) : [];
  return list
    .filter((t): t is string | number => typeof t === 'string' || typeof t === 'number')
    .map((t) => String(t).replace(/^#/, '').trim())
    .filter(Boolean);
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

export function parsePage(path: string, content: string): ParsedPage {
  const frontmatter = readFrontmatter(content);
  const scan = scanMarkdown(content, frontmatter.bodyStart);
  const links: PageLink[] = [];
  for (const link of scan.links) {
    // [[Target#Heading|Alias]] → "Target"; [[#Heading]] points at the page itself and is skipped.
    const target = link.kind === 'wiki' ? link.target.trim() : markdownTarget(path, link.target);
    if (target) links.push({ target, kind: link.kind, line: link.line });
  }
  const { title: fmTitle, tags: fmTags } = frontmatter.data;
  const tags = new Set(frontmatterTags(fmTags));
  for (const tag of scan.tags) tags.add(tag.name);
  const title =
    typeof fmTitle === 'string' && fmTitle.trim() ? fmTitle.trim() : scan.headings.find((h) => h.level === 1 && h.text !== '')?.text;
  return {
    title: title ?? titleFromPath(path),
    frontmatter: frontmatter.data,
    ...(frontmatter.error ? { frontmatterError: frontmatter.error } : {}),
    body: content.slice(frontmatter.bodyStart),
    tags: [...tags],
    links,
    headings: scan.headings,
    tasks: scan.tasks,
    tagSpans: scan.tags,
  };
}
