import { isPagePath, isVaultFilePath } from './paths.js';
import { parentOf } from './symlinks.js';

export interface ManifestEntry {
  /** Git blob id of the file at HEAD. */
  oid: string;
  /** Set by commits; for files untouched since open, looked up on first use (Vault.updatedAt). */
  updatedAt?: Date;
}

/**
 * What HEAD holds, in memory: every file's blob id, plus a case-folded index of the API's
 * files (pages and attachments) for CASE_COLLISION. Rebuilt from the tree at open, updated by each commit.
 * Symbolic links (git mode 120000, only ever made with git) are kept apart: their blob is
 * the link's target path, not content, so they are no file or page here, and nothing is
 * written at or beneath them.
 */
export class Manifest {
  private readonly files = new Map<string, ManifestEntry>();
  private readonly folded = new Map<string, string>();
  private readonly links = new Set<string>();
  /** Files beneath each folder (every level): a path is a folder while its count is above zero. */
  private readonly folders = new Map<string, number>();
  private sortedPages: string[] | undefined;
  private sortedFiles: string[] | undefined;

  get(path: string): ManifestEntry | undefined {
    return this.files.get(path);
  }

  set(path: string, entry: ManifestEntry): void {
    // A file committed where a link was (replaced in the folder by a real file or folder) ends it.
    for (let at = path; at !== '' && this.links.size; at = parentOf(at)) this.links.delete(at);
    if (!this.files.has(path)) {
      this.forgetSorted();
      this.countFolders(path, 1);
    }
    this.files.set(path, entry);
    if (isVaultFilePath(path)) this.folded.set(path.toLowerCase(), path);
  }

  delete(path: string): void {
    if (!this.files.delete(path)) return;
    this.forgetSorted();
    this.countFolders(path, -1);
    if (this.folded.get(path.toLowerCase()) === path) this.folded.delete(path.toLowerCase());
  }

  addLink(path: string): void {
    this.links.add(path);
  }

  deleteLink(path: string): void {
    this.links.delete(path);
  }

  /** `path` or the folder above it that is a symbolic link at HEAD, if any. */
  symlinkOn(path: string): string | undefined {
    if (!this.links.size) return undefined;
    let prefix = '';
    for (const part of path.split('/')) {
      prefix = prefix === '' ? part : `${prefix}/${part}`;
      if (this.links.has(prefix)) return prefix;
    }
    return undefined;
  }

  private forgetSorted(): void {
    this.sortedPages = undefined;
    this.sortedFiles = undefined;
  }

  /** An existing page or attachment whose path equals `path` but for case, if any. */
  caseTwin(path: string): string | undefined {
    const twin = this.folded.get(path.toLowerCase());
    return twin !== undefined && twin !== path ? twin : undefined;
  }

  /** True when some file lies beneath `path` (it is a folder at HEAD). */
  isFolder(path: string): boolean {
    return this.folders.has(path);
  }

  private countFolders(path: string, by: 1 | -1): void {
    for (let folder = parentOf(path); folder !== ''; folder = parentOf(folder)) {
      const count = (this.folders.get(folder) ?? 0) + by;
      if (count > 0) this.folders.set(folder, count);
      else this.folders.delete(folder);
    }
  }

  /** Page paths (visible .md files), sorted by code point. */
  pages(): readonly string[] {
    this.sortedPages ??= [...this.files.keys()].filter(isPagePath).sort();
    return this.sortedPages;
  }

  /** The API's files (pages and attachments, no hidden ones), sorted by code point. */
  vaultFiles(): readonly string[] {
    this.sortedFiles ??= [...this.files.keys()].filter(isVaultFilePath).sort();
    return this.sortedFiles;
  }

  /** Every file of the tree, hidden ones too. */
  entries(): IterableIterator<[string, ManifestEntry]> {
    return this.files.entries();
  }

  get size(): number {
    return this.files.size;
  }
}
