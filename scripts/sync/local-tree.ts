import { readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { Ignore } from 'ignore';
import { hashBlob } from '../../vault-store/git/hash-blob.js';
import { ignore, IgnoreRules } from '../../vault-store/worktree/ignore-rules.js';
import { STATE_FOLDER, type StatEntry } from './sync-state.js';

/** A local file as one scan saw it. */
export interface LocalFile {
  hash: string;
  size: number;
  mtimeMs: number;
}

export interface LocalScan {
  files: Map<string, LocalFile>;
  /** Files the transport cannot carry (names the server's file rules refuse, such as hidden folders). */
  skipped: number;
  /** Files that changed while being read: left out of this pass, and never taken as deleted. */
  busy: Set<string>;
  /** Entries of the stat cache added or renewed: the state needs saving. */
  cacheUpdates: number;
}

/**
 * An mtime this close to when it was seen may hide a later write within the same clock tick
 * (file systems keep mtimes in 1 ns to 2 s steps): such a file is hashed again next time.
 */
const RACY_MS = 2000;

function racy(entry: StatEntry): boolean {
  return entry[3] - entry[1] <= RACY_MS;
}

/** Temp files of our own writes (".name.quire-tmp-…", see tempNameFor). */
const TEMP = /\.quire-tmp-[0-9a-f]+$/;

/** What sync leaves alone in DIR: the vault's `.gitignore` files, `.git/info/exclude` and a local `.quireignore`. */
export class SyncIgnore {
  private constructor(
    private readonly git: IgnoreRules,
    private readonly local: Ignore | undefined,
  ) {}

  static async load(dir: string): Promise<SyncIgnore> {
    let text = '';
    try {
      text = readFileSync(join(dir, '.quireignore'), 'utf8');
    } catch {
      // no .quireignore
    }
    return new SyncIgnore(await IgnoreRules.load(dir), text.trim() ? ignore().add(text) : undefined);
  }

  ignores(path: string, isDir = false): boolean {
    return this.git.ignores(path, isDir) || (this.local?.ignores(isDir ? `${path}/` : path) ?? false);
  }
}

/**
 * Lists DIR's files with their git blob ids: the state folder, `.git` folders, symbolic
 * links and ignored paths are left out. A file whose size and mtime match the cache is not
 * read (an idle run reads no file); the cache is updated in place.
 */
export function scanLocal(dir: string, rules: SyncIgnore, accepts: (path: string) => boolean, cache: Map<string, StatEntry>): LocalScan {
  const files = new Map<string, LocalFile>();
  const busy = new Set<string>();
  let skipped = 0;
  let cacheUpdates = 0;
  const now = Date.now();
  // Concatenated, not join()ed: paths are "/"-separated and normalized already, and join's
  // normalizing was a tenth of an idle run's scan of 10,000 files.
  const root = `${dir}/`;
  const walk = (folder: string) => {
    for (const entry of readdirSync(folder === '' ? dir : root + folder, { withFileTypes: true })) {
      const path = folder === '' ? entry.name : `${folder}/${entry.name}`;
      if (entry.isDirectory()) {
        if (entry.name === '.git' || path === STATE_FOLDER || rules.ignores(path, true)) continue;
        walk(path);
        continue;
      }
      if (entry.isFile() && TEMP.test(entry.name)) {
        // A write of ours a kill cut short: its file was never renamed into place.
        rmSync(root + path, { force: true });
        continue;
      }
      if (!entry.isFile() || rules.ignores(path)) continue;
      if (!accepts(path)) {
        skipped++;
        continue;
      }
      const known = cache.get(path);
      const file = hashFile(root + path, known);
      if (file === 'gone') continue;
      if (file === 'busy') {
        busy.add(path);
        continue;
      }
      files.set(path, file);
      if (!known || known[0] !== file.size || known[1] !== file.mtimeMs || known[2] !== file.hash || racy(known)) {
        cache.set(path, [file.size, file.mtimeMs, file.hash, now]);
        cacheUpdates++;
      }
    }
  };
  walk('');
  for (const path of cache.keys()) if (!files.has(path)) cache.delete(path);
  return { files, skipped, busy, cacheUpdates };
}

/** A file's hash, from the cache when size and mtime match and the entry is not racy. */
function hashFile(file: string, cached: StatEntry | undefined): LocalFile | 'gone' | 'busy' {
  const before = statSync(file, { throwIfNoEntry: false });
  if (!before) return 'gone';
  if (cached && cached[0] === before.size && cached[1] === before.mtimeMs && !racy(cached)) {
    return { hash: cached[2], size: before.size, mtimeMs: before.mtimeMs };
  }
  let bytes: Buffer;
  try {
    bytes = readFileSync(file);
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'ENOENT' ? 'gone' : 'busy';
  }
  const after = statSync(file, { throwIfNoEntry: false });
  if (!after || after.mtimeMs !== before.mtimeMs || after.size !== bytes.length) return 'busy';
  return { hash: hashBlob(bytes), size: after.size, mtimeMs: after.mtimeMs };
}
