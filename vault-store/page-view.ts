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

export function toPageView(path: string, oid: string, bytes: Uint8Array, updatedAt: Date): PageView {
  const content = decoder.decode(bytes);
  const parsed = parsePage(path, content);
  return {
    path,
    hash: oid,
    title: parsed.title,
    content,
    frontmatter: parsed.frontmatter,
    ...(parsed.frontmatterError ? { frontmatter_error: parsed.frontmatterError } : {}),
    tags: parsed.tags,
    links: [...new Set(parsed.links.map((l) => l.target))],
    size: bytes.byteLength,
    updated_at: updatedAt.toISOString(),
  };
}

type SummaryFields = Pick<PageView, 'title' | 'tags' | 'size'>;

/**
 * Title, tags and size by blob id, so listings don't re-parse unchanged pages. A blob
 * never changes, so entries never go stale; the bound only caps memory.
 */
export class SummaryCache {
  private readonly entries = new Map<string, SummaryFields>();

  constructor(private readonly max = 50_000) {}

  get(path: string, oid: string): SummaryFields | undefined {
    return this.entries.get(`${oid}:${path}`);
  }

  remember(path: string, view: PageView): void {
    if (this.entries.size >= this.max) this.entries.delete(this.entries.keys().next().value!);
    this.entries.set(`${view.hash}:${path}`, { title: view.title, tags: view.tags, size: view.size });
  }
}
