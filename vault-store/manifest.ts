import { isPagePath } from './paths.js';

export interface ManifestEntry {
  /** Git blob id of the file at HEAD. */
  oid: string;
  /** Set by commits; for files untouched since open, looked up on first use (Vault.updatedAt). */
  updatedAt?: Date;
}

/**
 * What HEAD holds, in memory: every file's blob id, plus a case-folded index of pages
 * for CASE_COLLISION. Rebuilt from the tree at open, updated by each commit.
 */
export class Manifest {
  private readonly files = new Map<string, ManifestEntry>();
  private readonly folded = new Map<string, string>();
  private sortedPages: string[] | undefined;

  get(path: string): ManifestEntry | undefined {
    return this.files.get(path);
  }

  set(path: string, entry: ManifestEntry): void {
    if (!this.files.has(path)) this.sortedPages = undefined;
    this.files.set(path, entry);
    if (isPagePath(path)) this.folded.set(path.toLowerCase(), path);
  }

  delete(path: string): void {
    if (!this.files.delete(path)) return;
    this.sortedPages = undefined;
    if (this.folded.get(path.toLowerCase()) === path) this.folded.delete(path.toLowerCase());
  }

  /** An existing page whose path equals `path` but for case, if any. */
  caseTwin(path: string): string | undefined {
    const twin = this.folded.get(path.toLowerCase());
    return twin !== undefined && twin !== path ? twin : undefined;
  }

  /** Page paths (visible .md files), sorted by code point. */
  pages(): readonly string[] {
    this.sortedPages ??= [...this.files.keys()].filter(isPagePath).sort();
    return this.sortedPages;
  }

  /** Every file, pages and attachments. */
  entries(): IterableIterator<[string, ManifestEntry]> {
    return this.files.entries();
  }

  get size(): number {
    return this.files.size;
  }
}
