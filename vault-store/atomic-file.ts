import { promises as fsp } from 'node:fs';
import { dirname, basename, join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { parentOf, symlinkOnPath, symlinkRefusal } from './symlinks.js';

/** Temp names start with "." so the watcher and the path rules never treat them as pages. */
export function tempNameFor(path: string): string {
  return join(dirname(path), `.${basename(path)}.quire-tmp-${randomBytes(6).toString('hex')}`);
}

export async function fsyncDir(dir: string): Promise<void> {
  const handle = await fsp.open(dir, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** Creates and fsyncs a new file; "wx" fails on anything already there, a symbolic link included. */
async function createFileSynced(path: string, data: string | Uint8Array): Promise<void> {
  const handle = await fsp.open(path, 'wx');
  try {
    await handle.writeFile(data);
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/**
 * Replaces `path` so that a reader or a crash sees the old bytes or the new ones, never a
 * mix: write a sibling temp file, fsync it, rename over the target, fsync the directory.
 */
export async function atomicWriteFile(path: string, data: string | Uint8Array): Promise<void> {
  await fsp.mkdir(dirname(path), { recursive: true });
  const tmp = tempNameFor(path);
  try {
    await createFileSynced(tmp, data);
    await fsp.rename(tmp, path);
  } catch (err) {
    await fsp.rm(tmp, { force: true });
    throw err;
  }
  await fsyncDir(dirname(path));
}

/**
 * Replaces (or, for null, removes) the file `path` of the folder `root`, refused when a folder
 * between them is a symbolic link: mkdir, rename and rm would follow it out of `root`. A link
 * at `path` itself is replaced or removed, never its target.
 */
export async function replaceFileUnder(root: string, path: string, data: Uint8Array | null): Promise<void> {
  const link = symlinkOnPath(root, parentOf(path));
  if (link !== undefined) throw symlinkRefusal(path, link, 'folder');
  const target = join(root, path);
  if (data === null) await fsp.rm(target, { force: true });
  else await atomicWriteFile(target, data);
}
