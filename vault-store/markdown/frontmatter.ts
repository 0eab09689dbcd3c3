import { stringify } from 'yaml';
import { readYamlData } from './yaml-data.js';

/**
 * Front-matter is data, never code: the one place a page's front-matter is split off and
 * read. Only YAML is read (`---`, `---yaml`, `---yml`); any other language after the
 * opening `---` (js, coffee, json, toml…) is reported, not run, and a block larger than
 * this is not read at all. Either way the page is still served, with `{}` as its data.
 * Every read of a page parses its block again, and the yaml library needs 3-8 µs a byte on
 * the hostile blocks of test/vault-store/markdown/linear-time.test.ts: 8 KiB (a hundred-odd
 * lines of properties) keeps the worst block within a few tens of milliseconds.
 */
export const MAX_FRONTMATTER_BYTES = 8 * 1024;

interface FrontmatterBlock {
  /** The tag after the opening `---`, lower-cased; '' when there is none. */
  language: string;
  /** The text between the two delimiter lines. */
  source: string;
  /** Offset just after the closing line: where the body starts. */
  bodyStart: number;
}

export interface Frontmatter {
  data: Record<string, unknown>;
  /** Why the block was not read; the body is still what follows it. */
  error?: string;
  /** Offset where the body starts; 0 without front-matter. */
  bodyStart: number;
}

const YAML_TAGS = new Set(['', 'yaml', 'yml']);

/** Offset after a line holding only `---` and spaces that starts at `at`, or -1. */
function closingLineEnd(content: string, at: number): number {
  let end = at + 3;
  while (content[end] === ' ' || content[end] === '\t') end++;
  if (content[end] === '\r') end++;
  if (end === content.length) return end;
  return content[end] === '\n' ? end + 1 : -1;
}

/**
 * The block between an opening `---` line at the very start (after a byte-order mark) and
 * the next line that is `---`; undefined when there is no such pair. `----` is a rule, not a block.
 */
function findFrontmatter(content: string): FrontmatterBlock | undefined {
  const start = content.charCodeAt(0) === 0xfeff ? 1 : 0;
  const openEnd = content.indexOf('\n', start);
  if (!content.startsWith('---', start) || openEnd < 0 || content[start + 3] === '-') return undefined;
  for (let close = content.indexOf('\n---', openEnd); close >= 0; close = content.indexOf('\n---', close + 1)) {
    const bodyStart = closingLineEnd(content, close + 1);
    if (bodyStart >= 0) {
      const language = content
        .slice(start + 3, openEnd)
        .trim()
        .toLowerCase();
      return { language, source: content.slice(openEnd + 1, close + 1), bodyStart };
    }
  }
  return undefined;
}

/** Splits off and reads the front-matter; never throws, whatever the page holds. */
export function readFrontmatter(content: string): Frontmatter {
  const block = findFrontmatter(content);
  if (!block) return { data: {}, bodyStart: 0 };
  const refuse = (why: string): Frontmatter => ({ data: {}, error: why, bodyStart: block.bodyStart });
  if (!YAML_TAGS.has(block.language)) {
    return refuse(`front-matter language ${JSON.stringify(block.language.slice(0, 40))} is not supported; only YAML is read`);
  }
  if (block.source.length > MAX_FRONTMATTER_BYTES || Buffer.byteLength(block.source) > MAX_FRONTMATTER_BYTES) {
    return refuse(`front-matter is larger than ${MAX_FRONTMATTER_BYTES} bytes and is not read`);
  }
  // The block's first line is the file's second (the opening `---` is the first).
  const read = readYamlData(block.source, 2);
  return 'error' in read ? refuse(`front-matter ${read.error}`) : { data: read.data, bodyStart: block.bodyStart };
}

/** Where the body starts, for readers that need no front-matter data (sections, link rewriting). */
export function bodyStart(content: string): number {
  return findFrontmatter(content)?.bodyStart ?? 0;
}

/**
 * `body` under a YAML front-matter block holding `data`. Written with the YAML 1.1 schema so
 * strings a 1.1 reader would take for dates or booleans ("2024-01-02", "yes") are quoted
 * and read back as the same strings everywhere; lines are never folded.
 */
export function withFrontmatter(data: Record<string, unknown>, body: string): string {
  return `---\n${stringify(data, { schema: 'yaml-1.1', lineWidth: 0 })}---\n${body}`;
}
