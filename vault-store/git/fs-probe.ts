import { randomBytes } from 'node:crypto';
import fs, { promises as fsp, readFileSync, statSync } from 'node:fs';
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

/** The probe as found the first time, kept beside git's config: later opens read it back. */
const PROBED = 'quire-filesystem.json';
const probed = new Map<number, Promise<FileSystemProbe>>();

/**
 * What the file system under the repository can do: probed and written to `core.*` the first
 * time a repository is opened (new, or made before the probe existed, whose config may be
 * wrong), then read back from a small file of ours. Probing costs a few file creations and
 * the config four parses; opening a vault should cost neither.
 */
export async function fileSystemOf(gitdir: string): Promise<FileSystemProbe> {
  try {
    const { ignorecase, symlinks, filemode } = JSON.parse(readFileSync(join(gitdir, PROBED), 'utf8')) as FileSystemProbe;
    if ([ignorecase, symlinks, filemode].every((v) => typeof v === 'boolean')) return { ignorecase, symlinks, filemode };
  } catch {
    // Not probed yet (or the note is damaged): probe.
  }
  const probe = await probeOnce(gitdir);
  await applyCoreConfig(gitdir, probe);
  await fsp.writeFile(join(gitdir, PROBED), `${JSON.stringify(probe)}\n`);
  return probe;
}

/**
 * The config of a repository just made by `git init` (isomorphic-git's, which writes fixed
 * `core.*` values), written whole with the probed ones: one write instead of a parse and a
 * rewrite per key.
 */
export async function writeNewRepoConfig(gitdir: string): Promise<void> {
  const probe = await probeOnce(gitdir);
  const config = [
    '[core]',
    '\trepositoryformatversion = 0',
    `\tfilemode = ${probe.filemode}`,
    '\tbare = false',
    '\tlogallrefupdates = true',
    `\tsymlinks = ${probe.symlinks}`,
    `\tignorecase = ${probe.ignorecase}`,
    '',
  ].join('\n');
  await fsp.writeFile(join(gitdir, 'config'), config);
  await fsp.writeFile(join(gitdir, PROBED), `${JSON.stringify(probe)}\n`);
}

/**
 * One probe per file system (device) per process: a data folder of thousands of vaults
 * lives on one or two, and each probe costs a few file creations.
 */
function probeOnce(gitdir: string): Promise<FileSystemProbe> {
  const device = statSync(gitdir).dev;
  let probing = probed.get(device);
  if (!probing) {
    probing = probeFileSystem(gitdir);
    probed.set(device, probing);
    probing.catch(() => probed.delete(device));
  }
  return probing;
}

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
