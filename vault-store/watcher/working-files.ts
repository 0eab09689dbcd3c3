import { promises as fsp } from 'node:fs';
import { join } from 'node:path';
import { hashBlob } from '../git/hash-blob.js';
import type { Manifest } from '../manifest.js';
import type { FileChange } from '../vault.js';

/** Files read at once while hashing: enough to keep libuv's pool busy, far from EMFILE. */
const READ_CONCURRENCY = 32;

/**
 * True for paths the vault never takes from the working tree: any segment starting with
 * "." — `.git/`, editor folders like `.obsidian/`, and our own `.name.quire-tmp-*` files.
 */
export function isHiddenPath(path: string): boolean {
  return path.split('/').some((segment) => segment.startsWith('.'));
}

/** Regular files under `root`/`sub`, vault-relative with "/" separators; hidden entries and symlinks are skipped. */
export async function listWorkingFiles(root: string, sub = ''): Promise<string[]> {
  const found: string[] = [];
  const walk = async (rel: string): Promise<void> => {
    const entries = await fsp.readdir(join(root, rel), { withFileTypes: true }).catch(() => []);
    const folders: Promise<void>[] = [];
    for (const entry of entries) {
      if (entry.name.startsWith('.')) continue;
      const path = rel === '' ? entry.name : `${rel}/${entry.name}`;
      if (entry.isDirectory()) folders.push(walk(path));
      else if (entry.isFile()) found.push(path);
    }
    await Promise.all(folders);
  };
  await walk(sub);
  return found;
}

/** The bytes of a working file, or null when there is no regular file there. */
async function readWorkingFile(root: string, path: string): Promise<Uint8Array | null> {
  try {
    return await fsp.readFile(join(root, path));
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'EISDIR' || code === 'ENOTDIR') return null;
    throw err;
  }
}

/**
 * The working files at `paths` whose bytes differ from HEAD, as changes to commit: new or
 * edited files carry their bytes, a file HEAD has but the folder lacks is a delete.
 */
export async function diffWorkingFiles(root: string, manifest: Manifest, paths: readonly string[]): Promise<FileChange[]> {
  const changes: FileChange[] = [];
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < paths.length) {
      const path = paths[next++];
      const content = await readWorkingFile(root, path);
      const head = manifest.get(path)?.oid ?? null;
      const oid = content === null ? null : hashBlob(content);
      if (oid !== head) changes.push({ path, content, inWorkingTree: true });
    }
  };
  await Promise.all(Array.from({ length: Math.min(READ_CONCURRENCY, paths.length) }, worker));
  // Workers finish in any order; a stable order keeps commit events reproducible.
  return changes.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}
