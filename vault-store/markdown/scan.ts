/**
 * The one markdown scanner: every reader of page structure (page parsing, headings, sections,
 * link rewriting on move) takes fences, headings, links and tags from here, so they agree.
 * One pass over the lines, linear in the page size however hostile the page.
 *
 * The rules, CommonMark where it has one:
 * - Fence: up to 3 spaces, then a run of 3+ backticks or tildes (a backtick fence's info
 *   string holds no backtick). Closed by a line of up to 3 spaces, a run of the same character
 *   at least as long, then only spaces or tabs; unclosed, it runs to the end. Nothing inside a
 *   fence is a heading, link or tag. A line indented 4 spaces opens nothing.
 * - ATX heading: up to 3 spaces, 1-6 `#`, then a space, a tab or the line end. A closing `#`
 *   run is dropped only when a space precedes it, so `# C#` is "C#". Setext headings are not
 *   read. A heading line holds no tags (its links count).
 * - Code span: a backtick run closed by the next run of the same length on that line; nothing
 *   inside one is a link or a tag. Backslash escapes are not read.
 * - Wiki link `[[inner]]`, embed `![[inner]]`: inner is one or more characters, no `]`;
 *   the target is inner up to `|` or `#`.
 * - Markdown link `[text](href)`, `[text](href "title")`, image `![…](…)`: text holds no `]`,
 *   href is one or more characters, neither `)` nor whitespace. Links stay on one line.
 * - Tag: `#` at the line start or after whitespace or `(`, then a run of letters, digits and
 *   `_-/` holding at least one non-digit; no tag starts inside a link's destination (a wiki
 *   link's brackets, a markdown link's parentheses), so `[x](#anchor)` holds none.
 * - Task: a list item whose content starts `[c]` (see `list-items.ts`), outside fences and
 *   front-matter; its tags are the tags of its line.
 */
import { atxHeading, closesFence, fenceOpening, type FenceMarker } from './block-lines.js';
import { maskCodeSpans } from './code-spans.js';
import { listItem, ListNesting, taskMarker } from './list-items.js';
import { markdownLinks, wikiLinks, type LineAt, type LinkSpan } from './links.js';
import { tags, type TagSpan } from './tags.js';

export type { LinkSpan, TagSpan };

export interface Fence {
  /** Offset of the opening line, and the end of the closing line (or of the text when unclosed). */
  start: number;
  end: number;
  /** 1-based line of the opening fence. */
  line: number;
}

export interface HeadingSpan {
  level: number;
  text: string;
  /** Offsets of the heading line, without its line break. */
  start: number;
  end: number;
  /** 1-based line in the file. */
  line: number;
}

export interface TaskSpan {
  /** The character between the brackets, as written. */
  status: string;
  /** Offsets in the text: its status character, the text after the marker, the line's end (before its line break). */
  statusAt: number;
  textAt: number;
  end: number;
  /** 1-based line in the file. */
  line: number;
  /** List items above it: 0 at the top of a list. */
  level: number;
  /** Index in `headings` of the heading it sits under, -1 when none. */
  heading: number;
  /** Its line's tags: `tags` of the scan from `tagFrom` up to `tagTo` (no array per task: a page may hold 100k). */
  tagFrom: number;
  tagTo: number;
}

export interface MarkdownScan {
  fences: Fence[];
  headings: HeadingSpan[];
  links: LinkSpan[];
  tags: TagSpan[];
  tasks: TaskSpan[];
}

function linesBefore(text: string, offset: number): number {
  let count = 0;
  for (let at = text.indexOf('\n'); at >= 0 && at < offset; at = text.indexOf('\n', at + 1)) count++;
  return count;
}

/** The first character after up to 3 spaces: only `` ` ``, `~` or `#` there can open a block. */
function leadChar(line: string): number {
  // Reads stay in bounds here and in every per-character loop of the scanner: an
  // out-of-bounds read throws V8's optimized code away, and then a hostile page runs slow.
  let i = 0;
  while (i < 3 && i < line.length && line.charCodeAt(i) === 0x20) i++;
  return i < line.length ? line.charCodeAt(i) : -1;
}

/** Merges `b` into `out` from index `from` on; both runs are sorted by offset, and so is the result. */
function mergeInto(out: LinkSpan[], from: number, b: LinkSpan[]): void {
  if (b.length === 0) return;
  const a = out.splice(from);
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) out.push(j >= b.length || (i < a.length && a[i].start < b[j].start) ? a[i++] : b[j++]);
}

/** Links and tags of one line outside fences. */
function scanInline(line: string, at: LineAt, heading: boolean, scan: MarkdownScan): void {
  const brackets = line.includes('[');
  const hashes = !heading && line.includes('#');
  if (!brackets && !hashes) return;
  const text = line.includes('`') ? maskCodeSpans(line) : line;
  const first = scan.links.length;
  if (brackets) {
    wikiLinks(text, at, scan.links);
    const markdown: LinkSpan[] = [];
    markdownLinks(text, at, markdown);
    mergeInto(scan.links, first, markdown);
  }
  if (hashes) tags(text, at, scan.links.slice(first), scan.tags);
}

/** The nesting of a list item line (any other line may end a list), and the task it holds. */
function scanListItem(raw: string, at: LineAt, end: number, nesting: ListNesting, scan: MarkdownScan, tagsFrom: number): void {
  const item = listItem(raw);
  if (!item) return nesting.other(raw);
  const level = nesting.item(item.width);
  const task = taskMarker(raw, item);
  if (!task) return;
  scan.tasks.push({
    status: task.status,
    statusAt: at.offset + task.statusAt,
    textAt: at.offset + task.textAt,
    end,
    line: at.line,
    level,
    heading: scan.headings.length - 1,
    tagFrom: tagsFrom,
    tagTo: scan.tags.length,
  });
}

/** Scans `text` from offset `from` (the end of the front-matter, say); offsets and lines are the text's. */
export function scanMarkdown(text: string, from = 0): MarkdownScan {
  const scan: MarkdownScan = { fences: [], headings: [], links: [], tags: [], tasks: [] };
  const nesting = new ListNesting();
  let fence: FenceMarker | undefined;
  let fenceAt: LineAt = { offset: 0, line: 0 };
  let line = linesBefore(text, from) + 1;
  for (let start = from; start <= text.length; line++) {
    const newline = text.indexOf('\n', start);
    const lineEnd = newline < 0 ? text.length : newline;
    const end = lineEnd > start && text.charCodeAt(lineEnd - 1) === 0x0d ? lineEnd - 1 : lineEnd;
    const raw = text.slice(start, end);
    const lead = leadChar(raw);
    const at: LineAt = { offset: start, line };
    start = lineEnd + 1;
    if (fence) {
      if (lead === fence.char.charCodeAt(0) && closesFence(raw, fence)) {
        scan.fences.push({ start: fenceAt.offset, end, line: fenceAt.line });
        fence = undefined;
      }
      continue;
    }
    if (lead === 0x60 || lead === 0x7e) fence = fenceOpening(raw);
    if (fence) {
      fenceAt = at;
      continue;
    }
    const heading = lead === 0x23 ? atxHeading(raw) : undefined;
    if (heading) scan.headings.push({ level: heading.level, text: heading.text, start: at.offset, end, line });
    const tagsFrom = scan.tags.length;
    scanInline(raw, at, heading !== undefined, scan);
    if (heading) nesting.other(raw);
    else scanListItem(raw, at, end, nesting, scan, tagsFrom);
  }
  if (fence) scan.fences.push({ start: fenceAt.offset, end: text.length, line: fenceAt.line });
  return scan;
}
