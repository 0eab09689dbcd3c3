import { promises as fsp, rmSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fsyncPath, tempNameFor } from '../../vault-store/atomic-file.js';
import { parentOf, symlinkOnPath } from '../../vault-store/symlinks.js';
import type { LocalFile } from './local-tree.js';
import { STATE_FOLDER } from './sync-state.js';
import { diskError, SyncError } from './sync-error.js';

/** What the file at a path was when the pass decided to replace it; null: there was none. */
export type Expected = LocalFile | null;

/**
 * Writes into DIR for the sync client. A path from the server is checked before use (no
 * `..`, no state or `.git` folder, no symbolic link on the way out of DIR), and a file is
 * replaced only if it is still what the pass saw: an edit made in the meantime is never
 * overwritten (`busy`; the next pass sees it). Files are written beside and renamed, their
 * data fsync'd; the folders they land in are fsync'd by `settle`, once per batch.
 */
export class LocalFiles {
  private readonly touched = new Set<string>();
  /** Folders known to exist: a first sync would otherwise ask for each file's folder again. */
  private readonly folders = new Set<string>();

  constructor(readonly dir: string) {}

  async write(path: string, bytes: Uint8Array, expect: Expected): Promise<Omit<LocalFile, 'hash'> | 'busy'> {
    const target = this.target(path);
    if (!unchanged(target, expect)) return 'busy';
    const tmp = tempNameFor(target);
    try {
      const folder = dirname(target);
      if (!this.folders.has(folder)) {
        await fsp.mkdir(folder, { recursive: true });
        this.folders.add(folder);
      }
      const handle = await fsp.open(tmp, 'wx');
      try {
        await handle.writeFile(bytes);
        await handle.datasync();
      } finally {
        await handle.close();
      }
      // The last look before the rename: what an editor saved while we wrote wins.
      if (!unchanged(target, expect)) {
        await fsp.rm(tmp, { force: true });
        return 'busy';
      }
      await fsp.rename(tmp, target);
    } catch (err) {
      await fsp.rm(tmp, { force: true });
      throw diskError(err, path);
    }
    this.touched.add(dirname(target));
    const stat = statSync(target);
    return { size: stat.size, mtimeMs: stat.mtimeMs };
  }

  remove(path: string, expect: Expected): 'done' | 'busy' {
    const target = this.target(path);
    if (!unchanged(target, expect)) return 'busy';
    try {
      rmSync(target, { force: true });
    } catch (err) {
      throw diskError(err, path);
    }
    this.touched.add(dirname(target));
    return 'done';
  }

  /** fsyncs the folders written to since the last call (renames and removals are durable then). */
  async settle(): Promise<void> {
    const folders = [...this.touched];
    this.touched.clear();
    await Promise.all(folders.map((folder) => fsyncPath(folder).catch(() => undefined)));
  }

  private target(path: string): string {
    const segments = path.split('/');
    if (path.startsWith('/') || segments.some((s) => s === '' || s === '.' || s === '..' || s === '.git') || segments[0] === STATE_FOLDER) {
      throw new SyncError('refused', `The server sent a path the client will not write: ${JSON.stringify(path)}`);
    }
    const link = symlinkOnPath(this.dir, parentOf(path));
    if (link !== undefined) throw new SyncError('refused', `${path} is not written: ${link} is a symbolic link`);
    return join(this.dir, path);
  }
}

/** The file is as the pass saw it (same size and mtime), or still absent. */
function unchanged(target: string, expect: Expected): boolean {
  const stat = statSync(target, { throwIfNoEntry: false });
  if (!expect) return !stat;
  return !!stat && stat.isFile() && stat.size === expect.size && stat.mtimeMs === expect.mtimeMs;
}
