import { watch, type FSWatcher } from 'node:fs';
import { promises as fsp } from 'node:fs';
import { join } from 'node:path';

/**
 * One `fs.watch` per folder of a tree (dot-folders skipped), reporting every change by the
 * changed entry's absolute path. A folder that appears is watched with everything below it;
 * one that disappears is let go. Why not chokidar: it holds an fs.watch per *file* (10,072
 * for the 10k vault), and re-reads and lstats a folder's every entry on each event — about
 * 15 ms of the server's CPU per API write measured on that vault, more than the write itself.
 */
export class FolderWatcher {
  private readonly watchers = new Map<string, FSWatcher>();
  private closed = false;

  private constructor(
    private readonly onChange: (absolute: string) => void,
    private readonly onError: (err: Error) => void,
  ) {}

  static async start(root: string, onChange: (absolute: string) => void, onError: (err: Error) => void): Promise<FolderWatcher> {
    const watcher = new FolderWatcher(onChange, onError);
    await watcher.add(root);
    return watcher;
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

  /** Watches `folder` and every visible folder below it. */
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
    await Promise.all(entries.filter((e) => e.isDirectory() && !e.name.startsWith('.')).map((e) => this.add(join(folder, e.name))));
  }

  private drop(folder: string): void {
    for (const [path, w] of this.watchers) {
      if (path === folder || path.startsWith(`${folder}/`)) {
        w.close();
        this.watchers.delete(path);
      }
    }
    this.onChange(folder);
  }

  private event(folder: string, name: string | undefined): void {
    if (this.closed) return;
    if (!name) return this.onChange(folder);
    const path = join(folder, name);
    this.onChange(path);
    if (name.startsWith('.')) return;
    // A new folder (created, or moved in whole) needs watches of its own; a removed one frees its.
    void fsp
      .lstat(path)
      .then(
        (stat) => (stat.isDirectory() && !this.watchers.has(path) ? this.add(path).then(() => this.onChange(path)) : undefined),
        () => (this.watchers.has(path) ? this.drop(path) : undefined),
      )
      .catch((err: Error) => this.onError(err));
  }
}
