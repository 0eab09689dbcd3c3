import { closeSync, constants, fstatSync, openSync, promises as fsp, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { StoredBlob } from '../git/blob-stream.js';
import { hashOpenFile } from '../git/file-blob.js';
import { hashBlob } from '../git/hash-blob.js';
import type { Manifest } from '../manifest.js';
import { Slices } from '../slices.js';
import { parentOf, symlinkOnPath } from '../symlinks.js';

/**
 * Longest stretch of synchronous reading before yielding to the event loop. Reads are
 * synchronous because `fs.promises.readFile` costs several thread-pool round trips per
 * file: on 10k pages it hashed 3-4x slower than sync reads taken in short slices.
 */
const READ_SLICE_MS = 8;

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
 * One file to change: new bytes, a blob already streamed into git (an upload, whose copy
 * `file` is moved into the folder; or a big working file, `file` itself), or null to
 * delete. Paths are already validated.
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
 * Above this a working file is hashed, and stored when it changed, as a stream, never read
 * whole: an attachment can be hundreds of MiB. Pages (0.75 MiB at most by default) stay on
 * the synchronous whole-file path that is fastest for many small files.
 */
const WHOLE_READ_BYTES = 1024 * 1024;

/** A working file too big to read whole, left open (read through the descriptor, never by path again). */
interface BigFile {
  fd: number;
}

/**
 * The bytes of a working file (or, for a big one, the open file); null when there is no
 * regular file there; or the symbolic link (the file itself or a folder above it) that
 * stands in the way, never read through.
 */
function readWorkingFile(root: string, path: string, known: Map<string, boolean>): Uint8Array | BigFile | null | { symlink: string } {
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
  let keepOpen = false;
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) return null;
    if (st.size <= WHOLE_READ_BYTES) return readFileSync(fd);
    keepOpen = true;
    return { fd };
  } finally {
    if (!keepOpen) closeSync(fd);
  }
}

/** Stores an open working file as a blob (FileBlobs.storeOpenFile): its id and size. */
export type StoreFile = (fd: number) => Promise<{ oid: string; size: number }>;

/**
 * Walks the working files at `paths` and calls `changed` with each one whose bytes differ
 * from HEAD: its bytes, an open big file with its streamed id and size (`store` given:
 * stored in git), or null for a file HEAD has but the folder lacks. A path at or beneath a
 * symbolic link is no change at all (HEAD keeps what it has there) and the link goes to
 * `onSymlink`.
 */
async function scanWorkingFiles(
  root: string,
  manifest: Manifest,
  paths: readonly string[],
  onSymlink: OnSymlink | undefined,
  store: StoreFile | undefined,
  changed: (path: string, content: FileChange['content']) => void,
): Promise<void> {
  const known = new Map<string, boolean>();
  const slices = new Slices(READ_SLICE_MS);
  for (const path of [...paths].sort()) {
    const file = readWorkingFile(root, path, known);
    const atHead = manifest.get(path)?.oid ?? null;
    if (file !== null && 'symlink' in file) onSymlink?.(file.symlink);
    else if (file === null || file instanceof Uint8Array) {
      if ((file === null ? null : hashBlob(file)) !== atHead) changed(path, file);
    } else {
      try {
        const hashed = await hashOpenFile(file.fd);
        // Read again to store it only when it changed: a big file is hashed far more often than it changes.
        const blob = hashed.oid === atHead || !store ? hashed : await store(file.fd);
        if (blob.oid !== atHead) changed(path, { ...blob, file: join(root, path) });
      } finally {
        closeSync(file.fd);
      }
    }
    if (slices.due) {
      await slices.pause();
      // A folder may have been swapped for a link meanwhile: look again rather than trust the cache.
      known.clear();
    }
  }
}

/**
 * The working files at `paths` whose bytes differ from HEAD, as changes to commit: new or
 * edited files carry their bytes, or (big ones) are stored in git as they are read with
 * `store` and carry the blob; a file HEAD has but the folder lacks is a delete. Links as
 * for `scanWorkingFiles`.
 */
export async function diffWorkingFiles(
  root: string,
  manifest: Manifest,
  paths: readonly string[],
  store: StoreFile,
  onSymlink?: OnSymlink,
): Promise<FileChange[]> {
  const changes: FileChange[] = [];
  await scanWorkingFiles(root, manifest, paths, onSymlink, store, (path, content) => changes.push({ path, content, inWorkingTree: true }));
  return changes;
}

/** The paths among `paths` whose working file differs from HEAD (`diffWorkingFiles` without storing anything). */
export async function changedWorkingFiles(
  root: string,
  manifest: Manifest,
  paths: readonly string[],
  onSymlink?: OnSymlink,
): Promise<string[]> {
  const changed: string[] = [];
  await scanWorkingFiles(root, manifest, paths, onSymlink, undefined, (path) => changed.push(path));
  return changed;
}
