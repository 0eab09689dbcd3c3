import { randomBytes } from 'node:crypto';
import fs, { promises as fsp } from 'node:fs';
import { join } from 'node:path';
import git from 'isomorphic-git';

/** What the file system under a repository can do, as `git init` finds out and records in `core.*`. */
export interface FileSystemProbe {
  /** Names differing only in case are the same file (macOS, Windows): `core.ignorecase`. */
  ignorecase: boolean;
  /** Symbolic links can be made: `core.symlinks`. */
  symlinks: boolean;
  /** The executable bit is kept: `core.filemode`. */
  filemode: boolean;
}

/**
 * Probes the file system holding `gitdir` the way `git init` does (builtin/init-db.c), with
 * scratch files of its own that it removes: flips the executable bit of a file and looks
 * whether the change holds, makes a symbolic link, and looks for a file under its name with
 * the case swapped.
 */
export async function probeFileSystem(gitdir: string): Promise<FileSystemProbe> {
  const tag = randomBytes(6).toString('hex');
  const file = join(gitdir, `Probe-${tag}.tmp`);
  const link = join(gitdir, `probe-${tag}.link`);
  await fsp.writeFile(file, '', { flag: 'wx', mode: 0o644 });
  try {
    return { filemode: await keepsExecutableBit(file), symlinks: await makesSymlinks(link), ignorecase: await foldsCase(file) };
  } finally {
    await fsp.rm(file, { force: true });
    await fsp.rm(link, { force: true });
  }
}

async function keepsExecutableBit(file: string): Promise<boolean> {
  try {
    const before = (await fsp.lstat(file)).mode;
    await fsp.chmod(file, before ^ 0o100);
    const after = (await fsp.lstat(file)).mode;
    // A file system without modes (FAT, some network mounts) takes the chmod and reports the mode unchanged.
    return before !== after && (before & 0o100) === 0;
  } catch {
    return false;
  }
}

async function makesSymlinks(link: string): Promise<boolean> {
  try {
    await fsp.symlink('testing', link);
    return (await fsp.lstat(link)).isSymbolicLink();
  } catch {
    return false;
  }
}

async function foldsCase(file: string): Promise<boolean> {
  const name = file.slice(file.lastIndexOf('/') + 1);
  const swapped = [...name].map((c) => (c === c.toLowerCase() ? c.toUpperCase() : c.toLowerCase())).join('');
  return fsp
    .lstat(join(file, '..', swapped))
    .then(() => true)
    .catch(() => false);
}

const KEYS = ['ignorecase', 'symlinks', 'filemode'] as const;

/**
 * Sets `core.ignorecase`, `core.symlinks` and `core.filemode` in the repository's config to
 * the probed values where they differ (a vault copied from another machine, or made by a
 * tool that did not probe). True when it changed anything.
 */
export async function applyCoreConfig(gitdir: string, probe: FileSystemProbe): Promise<boolean> {
  let changed = false;
  for (const key of KEYS) {
    const path = `core.${key}`;
    const current: unknown = await git.getConfig({ fs, gitdir, path });
    if (current === probe[key] || String(current) === String(probe[key])) continue;
    await git.setConfig({ fs, gitdir, path, value: probe[key] });
    changed = true;
  }
  return changed;
}
