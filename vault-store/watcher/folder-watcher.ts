import { watch, type Dirent, type FSWatcher } from 'node:fs';
import { promises as fsp } from 'node:fs';
import { join } from 'node:path';
import { isNeverCommitted } from '../worktree/working-files.js';

/** Told a folder's absolute path: true to leave it (and all below it) unwatched. */
export type SkipFolder = (absolute: string) => boolean;

/**
 * One `fs.watch` per folder of a tree (`.git` folders and those `skip` names left out), reporting every change by the
 * changed entry's absolute path. A folder that appears is watched with everything below it;
 * one that disappears is let go. Why not chokidar: it holds an fs.watch per *file* (10,072
 * for the 10k vault), and re-reads and lstats a folder's every entry on each event — about
 * 15 ms of the server's CPU per API write measured on that vault, more than the write itself.
 */
export class FolderWatcher {
  private readonly watchers = new Map<string, FSWatcher>();
  private closed = false;

  private constructor(
    private readonly root: string,
    private readonly onChange: (absolute: string) => void,
    private readonly onError: (err: Error) => void,
    private readonly skip: SkipFolder,
  ) {}

  static async start(
    root: string,
    onChange: (absolute: string) => void,
    onError: (err: Error) => void,
    skip: SkipFolder = () => false,
  ): Promise<FolderWatcher> {
    const watcher = new FolderWatcher(root, onChange, onError, skip);
    await watcher.add(root);
    return watcher;
  }

  /**
   * Applies `skip` again (its answers changed, e.g. a `.gitignore` was edited): watches
   * folders no longer skipped, with everything below them, and lets go of those now skipped.
   */
  async resync(): Promise<void> {
    for (const folder of [...this.watchers.keys()]) {
      if (folder !== this.root && this.watchers.has(folder) && this.skip(folder)) this.release(folder);
    }
    const visit = async (folder: string): Promise<void> => {
      if (!this.watchers.has(folder)) return this.add(folder);
      const entries = await fsp.readdir(folder, { withFileTypes: true }).catch(() => []);
      await Promise.all(entries.filter((e) => this.watchable(folder, e)).map((e) => visit(join(folder, e.name))));
    };
    await visit(this.root);
  }

  /** Folders being watched. */
  get folders(): number {
    return this.watchers.size;
  }

  has(folder: string): boolean {
    return this.watchers.has(folder);
  }

  close(): void {
    this.closed = true;
    for (const w of this.watchers.values()) w.close();
    this.watchers.clear();
  }

  private watchable(parent: string, entry: Dirent): boolean {
    return entry.isDirectory() && entry.name !== '.git' && !this.skip(join(parent, entry.name));
  }

  /** Watches `folder` and every folder below it but the skipped. */
  private async add(folder: string): Promise<void> {
    if (this.closed || this.watchers.has(folder)) return;
    let w: FSWatcher;
    try {
      w = watch(folder, { persistent: false }, (_event, name) => this.event(folder, name?.toString()));
    } catch {
      return; // gone before we got to it: its parent's event reports that
    }
    w.on('error', () => this.drop(folder));
    this.watchers.set(folder, w);
    const entries = await fsp.readdir(folder, { withFileTypes: true }).catch(() => []);
    await Promise.all(entries.filter((e) => this.watchable(folder, e)).map((e) => this.add(join(folder, e.name))));
  }

  private drop(folder: string): void {
    this.release(folder);
    this.onChange(folder);
  }

  /** Closes the watches of `folder` and everything below it. */
  private release(folder: string): void {
    for (const [path, w] of this.watchers) {
      if (path === folder || path.startsWith(`${folder}/`)) {
        w.close();
        this.watchers.delete(path);
      }
    }
  }

  private event(folder: string, name: string | undefined): void {
    if (this.closed) return;
    if (!name) return this.onChange(folder);
    const path = join(folder, name);
    this.onChange(path);
    if (isNeverCommitted(name)) return; // `.git`, or a temp file of ours: no folder to watch
    // A new folder (created, or moved in whole) needs watches of its own; a removed one frees its.
    void fsp
      .lstat(path)
      .then(
        (stat) =>
          stat.isDirectory() && !this.watchers.has(path) && !this.skip(path) ? this.add(path).then(() => this.onChange(path)) : undefined,
        () => (this.watchers.has(path) ? this.drop(path) : undefined),
      )
      .catch((err: Error) => this.onError(err));
  }
}
