import { promises as fsp } from 'node:fs';
import { join } from 'node:path';
import { replaceFileUnder } from '../atomic-file.js';
import { QuireError } from '../errors.js';
import { normalizeFilePath, normalizePagePath } from '../paths.js';
import { symlinkOnPath } from '../symlinks.js';
import type { CommitEvent, Vault } from '../vault.js';
import { changedWorkingFiles, isNeverCommitted, listWorkingFiles, type OnSymlink, type PathFilter } from '../worktree/working-files.js';

export interface ExternalEditOptions {
  /** Told about each file left out because its path breaks the path rules, and each symbolic link (reason "symlink"). */
  onSkip?: (path: string, reason: string) => void;
  /**
   * The vault's ignore rules, kept fresh by the caller (the watcher). By default the vault's
   * own (`vault.ignore`), read again from disk first for a full scan.
   */
  ignore?: PathFilter;
}

/**
 * Why a working file's path cannot be committed, or undefined when it can. Pages follow
 * the page rules; attachments (not `.md`) and files in hidden folders (never pages) only
 * need valid segments, hidden ones included.
 */
export function invalidPathReason(path: string): string | undefined {
  try {
    const hidden = path.startsWith('.') || path.includes('/.');
    const canonical = path.endsWith('.md') && !hidden ? normalizePagePath(path) : normalizeFilePath(path);
    return canonical === path ? undefined : 'name is not in Unicode NFC form';
  } catch (err) {
    if (err instanceof QuireError) return err.message;
    throw err;
  }
}

/**
 * Every file a set of changed paths may stand for. A path can name a file, a folder (new,
 * or moved in whole) or something gone (a deleted file or folder), so folders are listed
 * and HEAD's files beneath a folder or a vanished path are included to catch deletes.
 * Ignored files are left out unless HEAD has them (tracked files are followed, as by git);
 * `.git` and our temp files always are. A path at or beneath a symbolic link stands for
 * nothing: the link goes to `onSymlink`.
 */
async function affectedFiles(
  vault: Vault,
  roots: readonly string[],
  ignore: PathFilter,
  onSymlink?: OnSymlink,
  onTempFile?: (path: string) => void,
): Promise<Set<string>> {
  const files = new Set<string>();
  const beneath: string[] = [];
  for (const root of roots) {
    if (root === '') {
      for (const path of await listWorkingFiles(vault.dir, '', onSymlink, ignore, onTempFile)) files.add(path);
      beneath.push('');
      continue;
    }
    if (isNeverCommitted(root)) continue;
    const link = symlinkOnPath(vault.dir, root);
    if (link !== undefined) {
      onSymlink?.(link);
      continue;
    }
    const atHead = vault.manifest.get(root) !== undefined;
    if (atHead) files.add(root);
    const stat = await fsp.lstat(join(vault.dir, root)).catch(() => undefined);
    if (stat?.isFile()) files.add(root);
    else if (stat?.isDirectory()) {
      if (!ignore.ignores(root, true)) for (const path of await listWorkingFiles(vault.dir, root, onSymlink, ignore)) files.add(path);
      beneath.push(`${root}/`);
    } else if (!stat && !atHead) beneath.push(`${root}/`);
  }
  if (beneath.length) {
    for (const [path] of vault.manifest.entries()) {
      if (beneath.some((prefix) => path.startsWith(prefix))) files.add(path);
    }
  }
  for (const path of files) {
    if (isNeverCommitted(path) || (ignore.ignores(path) && vault.manifest.get(path) === undefined)) files.delete(path);
  }
  return files;
}

/** The rules to filter `roots` with: the caller's, or the vault's (read again for a full scan). */
async function rulesFor(vault: Vault, roots: readonly string[], options: ExternalEditOptions): Promise<PathFilter> {
  if (options.ignore) return options.ignore;
  if (roots.includes('')) await vault.ignore.refresh();
  else await vault.ignore.ready();
  return vault.ignore;
}

/**
 * Files at `paths` that really differ from HEAD. A watcher's pending paths include the
 * server's own writes until its quiet period ends; those match HEAD and don't count.
 */
export async function uncommittedEdits(
  vault: Vault,
  paths: readonly string[],
  options: Pick<ExternalEditOptions, 'ignore'> = {},
): Promise<string[]> {
  if (paths.length === 0) return [];
  const ignore = await rulesFor(vault, paths, options);
  const files = [...(await affectedFiles(vault, paths, ignore))].filter((path) => invalidPathReason(path) === undefined);
  return changedWorkingFiles(vault.dir, vault.manifest, files);
}

/**
 * Whether `commitExternalEdits` on `paths` has anything to do: a file that differs from HEAD,
 * one to report (a symbolic link, a name the path rules refuse) or a temp file a crash left.
 * Looked at outside the queue: the watcher hears of every write the server makes, and those
 * files match HEAD by then; as queued tasks, these echoes held up the writes behind them (up
 * to 1.9 s each under 8 concurrent writers on the 10k vault, hashing the pending files
 * between other requests), as did the start-up scan of a clean folder (every file hashed).
 */
export async function externalEditsPending(
  vault: Vault,
  paths: readonly string[],
  options: Pick<ExternalEditOptions, 'ignore'> = {},
): Promise<boolean> {
  let link = false;
  let leftover = false;
  const onSymlink = () => (link = true);
  const ignore = await rulesFor(vault, paths, options);
  const files = [...(await affectedFiles(vault, paths, ignore, onSymlink, () => (leftover = true)))];
  if (link || leftover || files.some((path) => invalidPathReason(path) !== undefined)) return true;
  return (await changedWorkingFiles(vault.dir, vault.manifest, files, onSymlink)).length > 0 || link;
}

/**
 * Commits what changed in the working tree at `paths` (all of it when omitted) as one
 * commit by the external author, through the vault's queue. Files whose paths break the
 * path rules, and symbolic links, are reported to `onSkip` and never committed; ignored
 * files that HEAD does not have are left out silently.
 */
export function commitExternalEdits(
  vault: Vault,
  paths?: readonly string[],
  options: ExternalEditOptions = {},
): Promise<CommitEvent | undefined> {
  const onSymlink = options.onSkip && ((path: string) => options.onSkip!(path, 'symlink'));
  const roots = paths ?? [''];
  return vault.exclusive(async () => {
    const ignore = await rulesFor(vault, roots, options);
    const valid: string[] = [];
    // Inside the queue no write of ours is under way, so a temp file of ours is a crash's
    // leftover (git status would list it): a full scan removes them.
    const leftovers: string[] = [];
    for (const path of await affectedFiles(vault, roots, ignore, onSymlink, (temp) => leftovers.push(temp))) {
      const reason = invalidPathReason(path);
      if (reason === undefined) valid.push(path);
      else options.onSkip?.(path, reason);
    }
    for (const temp of leftovers) await replaceFileUnder(vault.dir, temp, null).catch(() => undefined);
    return vault.reconcile(valid, onSymlink);
  });
}
