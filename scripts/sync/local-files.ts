import { createHash } from 'node:crypto';
import { promises as fsp, rmSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fsyncPath, tempNameFor } from '../../vault-store/atomic-file.js';
import { parentOf, symlinkOnPath } from '../../vault-store/symlinks.js';
import type { LocalFile } from './local-tree.js';
import type { Spilled } from './remote.js';
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

  /**
   * Puts a file at `path`: bytes, or a big file `spill` already wrote beside it (moved into
   * place, or removed when the path is busy). The temp file is fsync'd before the rename.
   */
  async write(path: string, content: Uint8Array | Spilled, expect: Expected): Promise<Omit<LocalFile, 'hash'> | 'busy'> {
    const target = this.target(path);
    const bytes = content instanceof Uint8Array ? content : undefined;
    let tmp = bytes ? undefined : (content as Spilled).tmp;
    try {
      if (!unchanged(target, expect)) {
        if (tmp) await fsp.rm(tmp, { force: true });
        return 'busy';
      }
      if (bytes) {
        await this.folder(target);
        tmp = tempNameFor(target);
        const handle = await fsp.open(tmp, 'wx');
        try {
          await handle.writeFile(bytes);
          await handle.datasync();
        } finally {
          await handle.close();
        }
      }
      // The last look before the rename: what an editor saved while we wrote wins.
      if (!unchanged(target, expect)) {
        await fsp.rm(tmp!, { force: true });
        return 'busy';
      }
      await fsp.rename(tmp!, target);
    } catch (err) {
      if (tmp) await fsp.rm(tmp, { force: true });
      throw diskError(err, path);
    }
    this.touched.add(dirname(target));
    const stat = statSync(target);
    return { size: stat.size, mtimeMs: stat.mtimeMs };
  }

  /**
   * Writes a big download to a temp file beside `path` as it arrives, hashing it on the way
   * (a few chunks in memory), and fsyncs it; `write` then moves it into place.
   */
  async spill(path: string, size: number, bytes: AsyncIterable<Uint8Array>): Promise<Spilled> {
    const target = this.target(path);
    const tmp = tempNameFor(target);
    const sha = createHash('sha1').update(`blob ${size}\0`);
    // A failure while writing is the disk's (a full disk ends the run); while receiving, the network's.
    let writing = true;
    try {
      await this.folder(target);
      const handle = await fsp.open(tmp, 'wx');
      try {
        writing = false;
        for await (const chunk of bytes) {
          sha.update(chunk);
          writing = true;
          await handle.write(chunk);
          writing = false;
        }
        writing = true;
        await handle.datasync();
      } finally {
        await handle.close();
      }
    } catch (err) {
      await fsp.rm(tmp, { force: true });
      throw writing ? diskError(err, path) : err;
    }
    return { hash: sha.digest('hex'), size, tmp };
  }

  private async folder(target: string): Promise<void> {
    const folder = dirname(target);
    if (this.folders.has(folder)) return;
    await fsp.mkdir(folder, { recursive: true });
    this.folders.add(folder);
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
