import { promises as fsp } from 'node:fs';
import { dirname, basename, join } from 'node:path';
import { randomBytes } from 'node:crypto';

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

/** Writes and fsyncs a file in place (the caller guarantees nobody reads it half-written). */
export async function writeFileSynced(path: string, data: string | Uint8Array): Promise<void> {
  const handle = await fsp.open(path, 'w');
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
    await writeFileSynced(tmp, data);
    await fsp.rename(tmp, path);
  } catch (err) {
    await fsp.rm(tmp, { force: true });
    throw err;
  }
  await fsyncDir(dirname(path));
}
