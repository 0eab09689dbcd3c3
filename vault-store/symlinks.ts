import { lstatSync, type Stats } from 'node:fs';
import { join } from 'node:path';
import { QuireError } from './errors.js';

/**
 * The vault never follows a symbolic link in its folder. A link can point at any file the
 * server may read (its bytes would be committed and served) or at any folder it may write
 * (another user's vault). Node has no openat(), so a path is checked one component at a
 * time with lstat right before it is used; what remains is a race with someone swapping a
 * folder for a link in between, which needs write access to the vault folder itself.
 */

/**
 * The first component of `path` (a vault path; "" is the root) that is a symbolic link in
 * the folder `root`, or undefined. A missing component ends the walk: what gets created
 * there is a real folder. `known` remembers answers by prefix across one batch of paths.
 */
export function symlinkOnPath(root: string, path: string, known?: Map<string, boolean>): string | undefined {
  if (path === '') return undefined;
  let prefix = '';
  for (const part of path.split('/')) {
    prefix = prefix === '' ? part : `${prefix}/${part}`;
    let isLink = known?.get(prefix);
    if (isLink === undefined) {
      const stat = lstatIfPresent(join(root, prefix));
      if (!stat) return undefined;
      isLink = stat.isSymbolicLink();
      known?.set(prefix, isLink);
    }
    if (isLink) return prefix;
  }
  return undefined;
}

/** The folder part of a vault path: "" for a file at the root. */
export function parentOf(path: string): string {
  return path.slice(0, Math.max(0, path.lastIndexOf('/')));
}

/** Why a change to `path` is refused: `link` (the path or a folder above it) is a symbolic link. */
export function symlinkRefusal(path: string, link: string, where: 'folder' | 'git'): QuireError {
  const place = where === 'folder' ? 'the vault folder' : "the vault's git tree";
  const subject = link === path ? path : `${path}: ${link}`;
  return new QuireError('INVALID_PATH', `${subject} is a symbolic link in ${place}; links are never followed`, { path, symlink: link });
}

function lstatIfPresent(absolute: string): Stats | undefined {
  try {
    return lstatSync(absolute);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return undefined;
    throw err;
  }
}
