import { createHash } from 'node:crypto';
import { closeSync, fstatSync, lstatSync, openSync, readdirSync, readFileSync, readSync, rmSync, type Stats } from 'node:fs';
import { join } from 'node:path';
import type { Ignore } from 'ignore';
import { hashBlob } from '../../vault-store/git/hash-blob.js';
import { ignore, IgnoreRules } from '../../vault-store/worktree/ignore-rules.js';
import { BIG_FILE_BYTES, CHUNK_BYTES } from './big-files.js';
import { racy, ScanDigest, type StatEntry } from './scan-digest.js';

/** A local file as one scan saw it. */
export interface LocalFile {
  hash: string;
  size: number;
  mtimeMs: number;
}

export interface LocalScan {
  files: Map<string, LocalFile>;
  /** Files that changed while being read: left out of this pass, and never taken as deleted. */
  busy: Set<string>;
  /** Entries of the stat cache added, renewed or dropped: the state needs saving (0: the folder is as cached). */
  cacheUpdates: number;
  /** What sync leaves alone, as read by this scan. */
  rules: SyncIgnore;
}

/** Temp files of our own writes (".name.quire-tmp-…", see tempNameFor). */
const TEMP = /\.quire-tmp-[0-9a-f]+$/;

const DOT = 0x2e;

/**
 * What sync leaves alone in DIR: the vault's `.gitignore` files, `.git/info/exclude` and a
 * local `.quireignore`. The `.gitignore` files are read by the scan as it lists each folder.
 */
export class SyncIgnore {
  private constructor(
    readonly git: IgnoreRules,
    private readonly local: Ignore | undefined,
  ) {}

  static start(dir: string): SyncIgnore {
    let text = '';
    try {
      text = readFileSync(join(dir, '.quireignore'), 'utf8');
    } catch {
      // no .quireignore
    }
    return new SyncIgnore(IgnoreRules.forWalk(dir), text.trim() ? ignore().add(text) : undefined);
  }

  ignores(path: string, isDir = false): boolean {
    return this.git.ignores(path, isDir) || (this.local?.ignores(isDir ? `${path}/` : path) ?? false);
  }
}

/**
 * Visits DIR's files that sync: dot-led names (the state folder, `.git`), symbolic links,
 * ignored paths and what the transport cannot carry (a folder it refuses is not entered) are
 * left out, and a temp file of a write of ours that a kill cut short is removed.
 */
function walkFiles(dir: string, accepts: (path: string) => boolean, rules: SyncIgnore, visit: (path: string, stat: Stats) => void): void {
  // Concatenated, not join()ed: paths are "/"-separated and normalized already, and join's
  // normalizing was a tenth of an idle run's scan of 10,000 files.
  const root = `${dir}/`;
  const walk = (folder: string) => {
    // Names only, no Dirents: every entry kept is lstat'ed anyway, and that says what it is.
    const names = readdirSync(folder === '' ? dir : root + folder);
    // The folder's own rules before anything in it is asked about: one listing serves both.
    if (names.includes('.gitignore')) rules.git.addFolder(folder);
    for (const name of names) {
      const path = folder === '' ? name : `${folder}/${name}`;
      if (name.charCodeAt(0) === DOT) {
        // Dot-led names never sync (.git, the state folder, .obsidian, .gitignore: see
        // FilesRemote.accepts), so they are not even looked at; but a temp file of a write of
        // ours that a kill cut short (never renamed into place) is removed.
        if (TEMP.test(name) && lstatSync(root + path, { throwIfNoEntry: false })?.isFile()) rmSync(root + path, { force: true });
        continue;
      }
      const stat = lstatSync(root + path, { throwIfNoEntry: false });
      if (!stat) continue;
      if (stat.isDirectory()) {
        if (accepts(path) && !rules.ignores(path, true)) walk(path);
        continue;
      }
      // Symbolic links are left out, as are sockets and the like.
      if (stat.isFile() && accepts(path) && !rules.ignores(path)) visit(path, stat);
    }
  };
  walk('');
}

/**
 * The digest of DIR's files by path, size and mtime (see ScanDigest): equal to the one of the
 * stat cache when a full scan would find the cache exact, with no file read and nothing kept.
 */
export function digestLocal(dir: string, accepts: (path: string) => boolean): string {
  const digest = new ScanDigest();
  walkFiles(dir, accepts, SyncIgnore.start(dir), (path, stat) => digest.add(path, stat.size, stat.mtimeMs));
  return digest.toString();
}

/**
 * Lists DIR's files (see walkFiles) with their git blob ids. A file whose size and mtime
 * match the cache is not read (an idle run reads no file); the cache is updated in place.
 * Files over BIG_FILE_BYTES are hashed in chunks, after the walk.
 */
export function scanLocal(dir: string, accepts: (path: string) => boolean, cache: Map<string, StatEntry>): LocalScan {
  const files = new Map<string, LocalFile>();
  const busy = new Set<string>();
  const rules = SyncIgnore.start(dir);
  const big: [path: string, known: StatEntry | undefined][] = [];
  let cacheUpdates = 0;
  const now = Date.now();
  const found = (path: string, file: LocalFile | 'gone' | 'busy', known: StatEntry | undefined) => {
    if (file === 'gone') return;
    if (file === 'busy') return void busy.add(path);
    files.set(path, file);
    if (!known || known[0] !== file.size || known[1] !== file.mtimeMs || known[2] !== file.hash || racy(known)) {
      cache.set(path, [file.size, file.mtimeMs, file.hash, now]);
      cacheUpdates++;
    }
  };
  walkFiles(dir, accepts, rules, (path, stat) => {
    const known = cache.get(path);
    const file = hashFile(`${dir}/${path}`, stat, known);
    if (file === 'big') big.push([path, known]);
    else found(path, file, known);
  });
  for (const [path, known] of big) found(path, hashBigFile(`${dir}/${path}`), known);
  for (const path of cache.keys()) {
    if (files.has(path)) continue;
    cache.delete(path);
    cacheUpdates++;
  }
  return { files, busy, cacheUpdates, rules };
}

/**
 * A file's hash, from the cache when its size and mtime (`before`, from the walk) match and
 * the entry is not racy; 'big' when it must be streamed.
 */
function hashFile(file: string, before: Stats, cached: StatEntry | undefined): LocalFile | 'gone' | 'busy' | 'big' {
  if (cached && cached[0] === before.size && cached[1] === before.mtimeMs && !racy(cached)) {
    return { hash: cached[2], size: before.size, mtimeMs: before.mtimeMs };
  }
  if (before.size > BIG_FILE_BYTES) return 'big';
  let bytes: Buffer;
  try {
    bytes = readFileSync(file);
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'ENOENT' ? 'gone' : 'busy';
  }
  const after = lstatSync(file, { throwIfNoEntry: false });
  if (!after || after.mtimeMs !== before.mtimeMs || after.size !== bytes.length) return 'busy';
  return { hash: hashBlob(bytes), size: after.size, mtimeMs: after.mtimeMs };
}

/** A big file's hash, read in chunks into one buffer (no garbage the size of the file); busy when it changed meanwhile. */
function hashBigFile(file: string): LocalFile | 'gone' | 'busy' {
  let fd: number;
  try {
    fd = openSync(file, 'r');
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'ENOENT' ? 'gone' : 'busy';
  }
  try {
    const before = fstatSync(fd);
    const sha = createHash('sha1').update(`blob ${before.size}\0`);
    const chunk = Buffer.allocUnsafe(CHUNK_BYTES);
    let at = 0;
    for (let n; at < before.size && (n = readSync(fd, chunk, 0, Math.min(CHUNK_BYTES, before.size - at), at)) > 0; at += n) {
      sha.update(chunk.subarray(0, n));
    }
    const after = fstatSync(fd);
    if (at !== before.size || after.mtimeMs !== before.mtimeMs || after.size !== before.size) return 'busy';
    return { hash: sha.digest('hex'), size: after.size, mtimeMs: after.mtimeMs };
  } catch {
    return 'busy';
  } finally {
    closeSync(fd);
  }
}
