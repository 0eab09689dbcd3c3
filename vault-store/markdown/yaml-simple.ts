import { isScalar, Schema } from 'yaml';

/**
 * The front-matter most pages have, read without the yaml library's lexer and parser: one
 * `key: value` per line, where a value is a quoted string without escapes, a plain scalar, a
 * one-line flow list (`[a, "b c"]`), or nothing followed by a block list (`- a` lines, as
 * Obsidian writes `tags` and `aliases`). Anything else — a comment, a nested mapping, an
 * escape, a tab, a multi-line scalar, a repeated or over-long key — is left to the library: the caller
 * reads the block in full. What this accepts, the library reads to the same data with no
 * error or warning (checked by test/vault-store/markdown/yaml-simple.test.ts against the
 * library on generated blocks, and on blocks at the size cap by
 * test/security/frontmatter-fast-path.timed.test.ts). Plain scalars are resolved by the library's own core-schema
 * tags, so `null`, `true`, `0x1F`, `1e3` and `.inf` mean what they mean there.
 * Why: the library lexes and parses a four-line block in ~60 µs (150 ns a character), which
 * was 38% of the index builder's parse worker on a 10k-page vault.
 */
interface ScalarTag {
  test: RegExp;
  resolve(text: string, onError: (message: string) => void, options: { intAsBigInt: boolean }): unknown;
}
const TAGS = new Schema({ schema: 'core' }).tags.filter((tag) => tag.default === true && tag.test && !tag.collection) as ScalarTag[];
const RESOLVE_OPTIONS = { intAsBigInt: false };

/** Conservatively under YAML's 1024-character limit on an implicit key. */
const MAX_KEY_LENGTH = 1000;
const KEY = /^([A-Za-z_][A-Za-z0-9_-]*(?: [A-Za-z0-9_-]+)*):(?: +(.*))?$/;
const ITEM = /^( *)- +(.*)$/;
/** Printable (YAML's c-printable without the BOM, NEL and line separators), no tab. */
const PRINTABLE = /^[\x20-\x7E\xA0-\u2027\u202A-\uD7FF\uE000-\uFEFE\uFF00-\uFFFD\u{10000}-\u{10FFFF}]*$/u;
/** A plain scalar's first character may not be an indicator or a space. */
const PLAIN_START = /^[^-?:,[\]{}#&*!|>'"%@` ]/;
/** In a block: no `: ` or `:` at the end (a mapping), no ` #` (a comment). */
const PLAIN_BLOCK_BREAKS = /: |:$| #/;
/** In a flow list: no flow indicators, colons or comments at all. */
const PLAIN_FLOW_BREAKS = /[,[\]{}:#]/;

type Scalar = string | number | boolean | null;
type Value = Scalar | Scalar[];

/** The block's data, or undefined when it is not of the simple shape (read it with the library). */
export function simpleYamlData(source: string): Record<string, unknown> | undefined {
  if (!PRINTABLE.test(source.replace(/\r?\n/g, ' '))) return undefined;
  const lines = source.split('\n').map((line) => (line.endsWith('\r') ? line.slice(0, -1) : line));
  const data: Record<string, unknown> = {};
  for (let i = 0; i < lines.length; i++) {
    const line = trimSpaces(lines[i], false);
    if (line === '') continue;
    const match = KEY.exec(line);
    if (!match || !plainKey(match[1]) || Object.hasOwn(data, match[1])) return undefined;
    let value: Value | undefined;
    if (match[2] === undefined || match[2] === '') {
      const list = blockList(lines, i + 1);
      if (!list) return undefined;
      value = list.items.length ? list.items : null;
      i = list.next - 1;
    } else {
      value = match[2].startsWith('[') ? flowList(match[2]) : scalar(match[2], PLAIN_BLOCK_BREAKS);
    }
    if (value === undefined) return undefined;
    data[match[1]] = value;
  }
  return data;
}

/**
 * A key the library reads as this string: not `__proto__`, not a word the core schema
 * resolves (`true`, `null`), and within YAML's 1024 characters for an implicit key (a longer
 * one is an error there).
 */
function plainKey(key: string): boolean {
  return key.length <= MAX_KEY_LENGTH && key !== '__proto__' && resolvePlain(key) === key;
}

/** `- item` lines from `from`, all at one indentation; undefined when one is not a simple item. */
function blockList(lines: string[], from: number): { items: Scalar[]; next: number } | undefined {
  const items: Scalar[] = [];
  let indent: number | undefined;
  let at = from;
  for (; at < lines.length; at++) {
    const line = trimSpaces(lines[at], false);
    if (line === '') continue;
    const match = ITEM.exec(line);
    if (!match) {
      if (line.startsWith(' ') || line.startsWith('-')) return undefined;
      break;
    }
    if ((indent ??= match[1].length) !== match[1].length) return undefined;
    const item = scalar(match[2], PLAIN_BLOCK_BREAKS);
    if (item === undefined) return undefined;
    items.push(item);
  }
  return { items, next: at };
}

/** `[a, "b c", 'd']` on one line, nothing after it; undefined for anything else. */
function flowList(text: string): Scalar[] | undefined {
  if (!text.endsWith(']')) return undefined;
  const inner = trimSpaces(text.slice(1, -1));
  if (inner === '') return [];
  const items: Scalar[] = [];
  for (const part of inner.split(',')) {
    const item = scalar(trimSpaces(part), PLAIN_FLOW_BREAKS);
    if (item === undefined) return undefined;
    items.push(item);
  }
  return items;
}

/** A quoted string without escapes (or quotes inside), or a plain scalar without `breaks`. */
function scalar(text: string, breaks: RegExp): Scalar | undefined {
  const quote = text[0];
  if (quote === '"' || quote === "'") {
    const inner = text.slice(1, -1);
    const escapes = quote === '"' ? /["\\]/ : /'/;
    return text.length >= 2 && text.endsWith(quote) && !escapes.test(inner) ? inner : undefined;
  }
  if (text === '' || !PLAIN_START.test(text) || breaks.test(text)) return undefined;
  return resolvePlain(text);
}

/**
 * Without the spaces at its end (and its start, unless `leading` is false: a line's
 * indentation counts). YAML's white space is spaces and tabs (tabs never reach here), while
 * `trim` also takes no-break and other Unicode spaces, which YAML keeps.
 */
function trimSpaces(text: string, leading = true): string {
  let start = 0;
  let end = text.length;
  while (leading && start < end && text.charCodeAt(start) === 32) start++;
  while (end > start && text.charCodeAt(end - 1) === 32) end--;
  return start === 0 && end === text.length ? text : text.slice(start, end);
}

function resolvePlain(text: string): Scalar {
  const tag = TAGS.find((t) => t.test.test(text));
  if (!tag) return text;
  const resolved = tag.resolve(text, () => undefined, RESOLVE_OPTIONS);
  return (isScalar(resolved) ? resolved.value : resolved) as Scalar;
}
