import { parsePage } from './page.js';

const decoder = new TextDecoder('utf-8');

/** The page JSON of the API contract. */
export interface PageView {
  path: string;
  hash: string;
  title: string;
  content: string;
  frontmatter: Record<string, unknown>;
  frontmatter_error?: string;
  tags: string[];
  links: string[];
  size: number;
  updated_at: string;
}

export type PageSummary = Pick<PageView, 'path' | 'hash' | 'title' | 'size' | 'tags' | 'updated_at'>;

/** What parsing a page's text gives the view: everything but the text, hash and time. */
type ParsedFields = Pick<PageView, 'title' | 'frontmatter' | 'frontmatter_error' | 'tags' | 'links' | 'size'>;

function parseFields(path: string, content: string, size: number): ParsedFields {
  const parsed = parsePage(path, content);
  return deepFreeze({
    title: parsed.title,
    frontmatter: parsed.frontmatter,
    ...(parsed.frontmatterError ? { frontmatter_error: parsed.frontmatterError } : {}),
    tags: parsed.tags,
    links: [...new Set(parsed.links.map((l) => l.target))],
    size,
  });
}

/** Cached fields are shared by every later view of the blob: nothing may change them. */
function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}

/**
 * A page's parsed fields by blob id and path (the title falls back to the file name), so
 * reads and listings never re-parse an unchanged page: front-matter parsing was the
 * largest cost of a page read. A blob never changes, so entries never go stale; least
 * recently used entries go first once the bound is reached.
 */
export class ViewCache {
  private readonly entries = new Map<string, ParsedFields>();

  constructor(private readonly max = 20_000) {}

  /** The view of `bytes` (the blob `oid` at `path`), parsing only on a miss. */
  view(path: string, oid: string, bytes: Uint8Array, updatedAt: Date): PageView {
    const key = `${oid}:${path}`;
    const content = decoder.decode(bytes);
    let fields = this.entries.get(key);
    if (fields) this.entries.delete(key);
    else fields = parseFields(path, content, bytes.byteLength);
    this.entries.set(key, fields);
    if (this.entries.size > this.max) this.entries.delete(this.entries.keys().next().value!);
    const { title, frontmatter, frontmatter_error, tags, links, size } = fields;
    return {
      path,
      hash: oid,
      title,
      content,
      frontmatter,
      ...(frontmatter_error ? { frontmatter_error } : {}),
      tags,
      links,
      size,
      updated_at: updatedAt.toISOString(),
    };
  }

  /** The parsed fields of a blob read before, if still cached. */
  fields(path: string, oid: string): ParsedFields | undefined {
    return this.entries.get(`${oid}:${path}`);
  }
}
