import { promises as fsp } from 'node:fs';
import { join } from 'node:path';
import type { Vault } from '../vault.js';
import { shownIn, type Visible } from './graph/graph-view.js';
import type { LinkGraph } from './graph/link-graph.js';
import type { PageMeta } from './page-meta.js';

/** The stats JSON of the API contract. */
export interface VaultStats {
  pages: number;
  words: number;
  /** Links to pages, as written (a page linking another twice counts twice). */
  links: number;
  unresolved_links: number;
  /** Sorted by count, most used first, then by tag. */
  tags: { tag: string; count: number }[];
  /** Pages per top-level folder ("" for pages at the root), sorted by folder. */
  folders: { folder: string; pages: number }[];
  /** Whole-vault figures: only for callers that read the whole vault. */
  commits?: number;
  disk_bytes?: number;
}

export interface StatsOptions {
  /** Commits and bytes on disk of the whole vault; left out of the stats when not given. */
  commits?: number;
  diskBytes?: number;
  /** Pages the caller may read; the others are left out of every figure. */
  visible?: Visible;
}

function increment(counts: Map<string, number>, key: string): void {
  counts.set(key, (counts.get(key) ?? 0) + 1);
}

const byCode = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

export function stats(metas: ReadonlyMap<string, PageMeta>, graph: LinkGraph, options: StatsOptions): VaultStats {
  const shown = shownIn(metas, options.visible);
  const tags = new Map<string, number>();
  const folders = new Map<string, number>();
  let pages = 0;
  let words = 0;
  let links = 0;
  let unresolved = 0;
  for (const meta of metas.values()) {
    if (!shown(meta.path)) continue;
    pages++;
    words += meta.words;
    for (const tag of meta.tags) increment(tags, tag);
    const slash = meta.path.indexOf('/');
    increment(folders, slash < 0 ? '' : meta.path.slice(0, slash));
    for (const link of graph.links(meta.path)) {
      // A link to a hidden page is unresolved for the caller, as if the page did not exist.
      if (link.resolved === null || !shown(link.resolved)) unresolved++;
      else links++;
    }
  }
  return {
    pages,
    words,
    links: links + unresolved,
    unresolved_links: unresolved,
    tags: [...tags].sort((a, b) => b[1] - a[1] || byCode(a[0], b[0])).map(([tag, count]) => ({ tag, count })),
    folders: [...folders].sort((a, b) => byCode(a[0], b[0])).map(([folder, n]) => ({ folder, pages: n })),
    ...(options.commits === undefined ? {} : { commits: options.commits }),
    ...(options.diskBytes === undefined ? {} : { disk_bytes: options.diskBytes }),
  };
}

/**
 * Commits on the first-parent chain from HEAD (`git rev-list --first-parent --count HEAD`).
 * Remembers the last count, so after new commits only those are walked: one per vault.
 */
export class CommitCounter {
  private known: { head: string; count: number } | undefined;

  constructor(private readonly vault: Vault) {}

  async count(): Promise<number> {
    const head = this.vault.head;
    const known = this.known;
    if (known?.head === head) return known.count;
    let steps = 0;
    let oid: string | undefined = head;
    while (oid !== undefined && oid !== known?.head) {
      steps++;
      oid = (await this.vault.repo.objects.commit(oid)).parents[0];
    }
    // Reaching the root without meeting the remembered head means history was rewritten.
    const count = oid === undefined ? steps : steps + known!.count;
    this.known = { head, count };
    return count;
  }
}

/** Bytes of every file under `dir`, `.git` included; symlinks count as links, not targets. */
export async function diskBytes(dir: string): Promise<number> {
  // Writes go on while we walk: a temp file or folder gone by the time we get to it counts 0.
  const entries = await fsp.readdir(dir, { withFileTypes: true }).catch(() => []);
  const sizes = await Promise.all(
    entries.map(async (entry) => {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) return diskBytes(path);
      return (await fsp.lstat(path).catch(() => undefined))?.size ?? 0;
    }),
  );
  return sizes.reduce((a, b) => a + b, 0);
}
