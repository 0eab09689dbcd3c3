import { closeSync, constants, fstatSync, openSync, promises as fsp, readFileSync } from 'node:fs';
import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import { join } from 'node:path';
import type { StoredBlob } from '../git/blob-stream.js';
import { hashBlob } from '../git/hash-blob.js';
import type { Manifest } from '../manifest.js';
import { parentOf, symlinkOnPath } from '../symlinks.js';

/**
 * Longest stretch of synchronous reading before yielding to the event loop. Reads are
 * synchronous because `fs.promises.readFile` costs several thread-pool round trips per
 * file: on 10k pages it hashed 3-4x slower than sync reads taken in short slices.
 */
const SLICE_MS = 8;

/** Our own temp files (`tempNameFor` in atomic-file.ts): `.<name>.quire-tmp-<hex>`. */
const TEMP_NAME = /^\..+\.quire-tmp-[0-9a-f]+$/;

/**
 * True for paths the vault never takes from the working tree, whatever the ignore rules
 * say: the repository (`.git`, and any nested one: never descended into) and our own
 * half-written temp files. Other dot-files (`.gitignore`, `.obsidian/app.json`) are files
 * like any other, left out only when ignored (see IgnoreRules).
 */
export function isNeverCommitted(path: string): boolean {
  return path.split('/').some((segment) => segment === '.git' || TEMP_NAME.test(segment));
}

/** What the working tree's listing leaves out, beyond `isNeverCommitted`: git's ignore rules (IgnoreRules). */
export interface PathFilter {
  ignores(path: string, isDir?: boolean): boolean;
}

/**
 * One file to change: new bytes, a blob already streamed into git (an upload, whose copy is
 * moved into the folder), or null to delete. Paths are already validated.
 */
export interface FileChange {
  path: string;
  content: Uint8Array | StoredBlob | null;
  /** The working tree already holds this change (an external edit): don't rewrite the file under its editor. */
  inWorkingTree?: boolean;
}

/** Told the vault path of each symbolic link met in the working tree (it is never followed). */
export type OnSymlink = (path: string) => void;

/**
 * Regular files under `root`/`sub`, vault-relative with "/" separators. `.git`, our temp
 * files and what `ignore` ignores (files, and folders with all beneath them) are skipped;
 * symbolic links are reported to `onSymlink` and neither read nor descended into, our temp
 * files to `onTempFile`. Tracked
 * files among the ignored are the caller's to add (from the manifest). The caller checks
 * that `sub` itself lies beneath no link.
 */
export async function listWorkingFiles(
  root: string,
  sub = '',
  onSymlink?: OnSymlink,
  ignore?: PathFilter,
  onTempFile?: (path: string) => void,
): Promise<string[]> {
  const found: string[] = [];
  const walk = async (rel: string): Promise<void> => {
    const entries = await fsp.readdir(join(root, rel), { withFileTypes: true }).catch(() => []);
    const folders: Promise<void>[] = [];
    for (const entry of entries) {
      if (entry.name === '.git') continue;
      const path = rel === '' ? entry.name : `${rel}/${entry.name}`;
      if (TEMP_NAME.test(entry.name)) {
        if (entry.isFile()) onTempFile?.(path);
        continue;
      }
      if (entry.isSymbolicLink()) {
        if (!ignore?.ignores(path)) onSymlink?.(path);
      } else if (ignore?.ignores(path, entry.isDirectory())) continue;
      else if (entry.isDirectory()) folders.push(walk(path));
      else if (entry.isFile()) found.push(path);
    }
    await Promise.all(folders);
  };
  await walk(sub);
  return found;
}

/** O_NONBLOCK: a FIFO named like a page must not hang the read; it is no regular file anyway. */
const READ_FLAGS = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK;

/**
 * The bytes of a working file; null when there is no regular file there; or the symbolic
 * link (the file itself or a folder above it) that stands in the way, never read through.
 */
function readWorkingFile(root: string, path: string, known: Map<string, boolean>): Uint8Array | null | { symlink: string } {
  const link = symlinkOnPath(root, parentOf(path), known);
  if (link !== undefined) return { symlink: link };
  let fd: number;
  try {
    fd = openSync(join(root, path), READ_FLAGS);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ELOOP') return { symlink: path };
    if (code === 'ENOENT' || code === 'ENOTDIR') return null;
    throw err;
  }
  try {
    return fstatSync(fd).isFile() ? readFileSync(fd) : null;
  } finally {
    closeSync(fd);
  }
}

/**
 * The working files at `paths` whose bytes differ from HEAD, as changes to commit: new or
 * edited files carry their bytes, a file HEAD has but the folder lacks is a delete. A path
 * at or beneath a symbolic link is no change at all (HEAD keeps what it has there) and the
 * link goes to `onSymlink`.
 */
export async function diffWorkingFiles(
  root: string,
  manifest: Manifest,
  paths: readonly string[],
  onSymlink?: OnSymlink,
): Promise<FileChange[]> {
  const changes: FileChange[] = [];
  const known = new Map<string, boolean>();
  let sliceStart = performance.now();
  for (const path of [...paths].sort()) {
    const file = readWorkingFile(root, path, known);
    if (file !== null && 'symlink' in file) onSymlink?.(file.symlink);
    else {
      const oid = file === null ? null : hashBlob(file);
      if (oid !== (manifest.get(path)?.oid ?? null)) changes.push({ path, content: file, inWorkingTree: true });
    }
    if (performance.now() - sliceStart > SLICE_MS) {
      await yieldToEventLoop();
      // A folder may have been swapped for a link meanwhile: look again rather than trust the cache.
      known.clear();
      sliceStart = performance.now();
    }
  }
  return changes;
}
