import { isVaultFilePath } from './paths.js';
import { parentOf } from './symlinks.js';

export interface ManifestEntry {
  /** Git blob id of the file at HEAD. */
  oid: string;
  /** Set by commits; for files untouched since open, looked up on first use (Vault.updatedAt). */
  updatedAt?: Date;
}

/** A file of a tree as the manifest takes it: `hidden` when the API does not serve it (dot-segments, control characters). */
export interface ManifestFile {
  path: string;
  oid: string;
  hidden: boolean;
}

/** What only writes ask (case twins, folders): built from the files when first asked, then kept in step. */
interface Shape {
  /** The API's files by their case-folded path. */
  folded: Map<string, string>;
  /** Files beneath each folder (every level): a path is a folder while its count is above zero. */
  folders: Map<string, number>;
}

/**
 * What HEAD holds, in memory: every file's blob id, plus a case-folded index of the API's
 * files (pages and attachments) for CASE_COLLISION. Made from the tree (or its saved copy,
 * see manifest-file.ts) at open, updated by each commit.
 * Symbolic links (git mode 120000, only ever made with git) are kept apart: their blob is
 * the link's target path, not content, so they are no file or page here, and nothing is
 * written at or beneath them.
 */
export class Manifest {
  private readonly map = new Map<string, ManifestEntry>();
  /** Files not taken in yet (see `of`), and how many. */
  private pending: { files: () => Iterable<ManifestFile>; size: number } | undefined;
  /** Files of `files` the API does not serve: checked once per path, never again per listing. */
  private readonly hiddenFiles = new Set<string>();
  private readonly links = new Set<string>();
  private shaped: Shape | undefined;
  private sortedPages: string[] | undefined;
  private sortedFiles: string[] | undefined;

  /**
   * A tree's files and links. Files given as a function (with their count) are taken in when
   * the manifest is first asked about them, not now: a warm start answering its first search
   * needs none (100k saved files took ~0.1 s to take in). The case and folder indexes wait for
   * the first write that needs them.
   */
  static of(files: Iterable<ManifestFile> | { files: () => Iterable<ManifestFile>; size: number }, links: Iterable<string>): Manifest {
    const manifest = new Manifest();
    if (Symbol.iterator in files) manifest.take(files);
    else manifest.pending = files;
    for (const link of links) manifest.links.add(link);
    return manifest;
  }

  private take(files: Iterable<ManifestFile>): void {
    for (const { path, oid, hidden } of files) {
      this.map.set(path, { oid });
      if (hidden) this.hiddenFiles.add(path);
    }
  }

  /** Every file, taken in first if still pending. */
  private get files(): Map<string, ManifestEntry> {
    if (this.pending) {
      const { files } = this.pending;
      this.pending = undefined;
      this.take(files());
    }
    return this.map;
  }

  get(path: string): ManifestEntry | undefined {
    return this.files.get(path);
  }

  set(path: string, entry: ManifestEntry): void {
    // A file committed where a link was (replaced in the folder by a real file or folder) ends it.
    for (let at = path; at !== '' && this.links.size; at = parentOf(at)) this.links.delete(at);
    const added = !this.files.has(path);
    if (added) this.forgetSorted();
    this.files.set(path, entry);
    if (!added) return;
    const hidden = !isVaultFilePath(path);
    if (hidden) this.hiddenFiles.add(path);
    if (this.shaped) shapeFile(this.shaped, path, hidden, 1);
  }

  delete(path: string): void {
    if (!this.files.delete(path)) return;
    this.forgetSorted();
    const hidden = this.hiddenFiles.delete(path);
    if (this.shaped) shapeFile(this.shaped, path, hidden, -1);
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

  /** An existing page or attachment whose path equals `path` but for case, if any. */
  caseTwin(path: string): string | undefined {
    const twin = this.shape().folded.get(path.toLowerCase());
    return twin !== undefined && twin !== path ? twin : undefined;
  }

  /** True when some file lies beneath `path` (it is a folder at HEAD). */
  isFolder(path: string): boolean {
    return this.shape().folders.has(path);
  }

  /** Page paths (visible .md files), sorted by code point. */
  pages(): readonly string[] {
    this.sortedPages ??= this.vaultFiles().filter((path) => path.endsWith('.md'));
    return this.sortedPages;
  }

  /** The API's files (pages and attachments, no hidden ones), sorted by code point. */
  vaultFiles(): readonly string[] {
    this.sortedFiles ??= [...this.files.keys()].filter((path) => !this.hiddenFiles.has(path)).sort();
    return this.sortedFiles;
  }

  /** Every file of the tree, hidden ones too. */
  entries(): IterableIterator<[string, ManifestEntry]> {
    return this.files.entries();
  }

  /** True for a file of the tree the API does not serve. */
  isHidden(path: string): boolean {
    return this.files.has(path) && this.hiddenFiles.has(path);
  }

  /** The symbolic links of the tree. */
  symlinks(): IterableIterator<string> {
    return this.links.values();
  }

  get size(): number {
    return this.pending?.size ?? this.map.size;
  }

  private forgetSorted(): void {
    this.sortedPages = undefined;
    this.sortedFiles = undefined;
  }

  private shape(): Shape {
    if (this.shaped) return this.shaped;
    const shape: Shape = { folded: new Map(), folders: new Map() };
    for (const path of this.files.keys()) shapeFile(shape, path, this.hiddenFiles.has(path), 1);
    return (this.shaped = shape);
  }
}

function shapeFile(shape: Shape, path: string, hidden: boolean, by: 1 | -1): void {
  const folded = path.toLowerCase();
  if (!hidden && by === 1) shape.folded.set(folded, path);
  else if (!hidden && shape.folded.get(folded) === path) shape.folded.delete(folded);
  for (let folder = parentOf(path); folder !== ''; folder = parentOf(folder)) {
    const count = (shape.folders.get(folder) ?? 0) + by;
    if (count > 0) shape.folders.set(folder, count);
    else shape.folders.delete(folder);
  }
}
