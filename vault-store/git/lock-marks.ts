import { closeSync, fstatSync, mkdirSync, openSync, promises as fsp, readdirSync, rmSync, writeSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { dirname, join } from 'node:path';

/**
 * Where this server notes the last lock file it made for each target (its inode and birth
 * time), so that after a crash it removes its own leftover and never a lock some git command
 * holds: git's lock is another file. The note is overwritten in place, never removed
 * (creating and deleting files is the slow part of a lock on some file systems).
 */
const MARKS = 'quire-locks';
/** Inside MARKS: files made for a lock, noted, and not yet (or never) linked as the lock. */
const NEW = 'new';
const MARK_BYTES = 48;

/**
 * A new empty file under `.git/quire-locks/new/`, noted as `target`'s next lock before it is
 * linked as `<target>.lock`. Noting a lock only after creating it left a window: a SIGKILL
 * between the two (3 of ~1,100 kills in the crash test) left a lock with no note, taken
 * for git's, and every later write waited on it and was VAULT_BUSY.
 */
export function markedFile(gitdir: string, target: string): { fd: number; path: string } {
  const path = join(gitdir, MARKS, NEW, `${encodeURIComponent(target)}.${randomBytes(6).toString('hex')}`);
  let fd: number;
  try {
    fd = openSync(path, 'wx');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    mkdirSync(dirname(path), { recursive: true });
    fd = openSync(path, 'wx');
  }
  noteLock(gitdir, target, { fd, path });
  return { fd, path };
}

/** Notes `file` as the lock this server made last for `target`; when that fails, closes and removes it. */
export function noteLock(gitdir: string, target: string, file: { fd: number; path: string }): void {
  try {
    writeNote(gitdir, target, file.fd);
  } catch (err) {
    closeSync(file.fd);
    rmSync(file.path, { force: true });
    throw err;
  }
}

function writeNote(gitdir: string, target: string, fd: number): void {
  const stat = fstatSync(fd, { bigint: true });
  const text = `${stat.ino} ${stat.birthtimeNs}`.padEnd(MARK_BYTES);
  const notePath = join(gitdir, MARKS, encodeURIComponent(target));
  let noteFd: number;
  try {
    noteFd = openSync(notePath, 'r+');
  } catch {
    noteFd = openSync(notePath, 'w');
  }
  try {
    writeSync(noteFd, text, 0);
  } finally {
    closeSync(noteFd);
  }
}

/**
 * After a crash: removes the lock files this server left (its note of the lock's inode and
 * birth time still matches the file), and the files it made for locks it never took. Any
 * other lock belongs to git and stays.
 */
export async function removeOwnStaleLocks(gitdir: string): Promise<void> {
  const folder = join(gitdir, MARKS);
  let names: string[];
  try {
    // Synchronous: read at every vault open, and almost always missing or empty.
    names = readdirSync(folder);
  } catch {
    return;
  }
  for (const name of names) {
    if (name === NEW) {
      await fsp.rm(join(folder, NEW), { recursive: true, force: true });
      continue;
    }
    const marker = join(folder, name);
    const lockPath = join(gitdir, `${decodeURIComponent(name)}.lock`);
    const [noted, stat] = await Promise.all([
      fsp.readFile(marker, 'utf8').catch(() => ''),
      fsp.lstat(lockPath, { bigint: true }).catch(() => undefined),
    ]);
    if (stat && noted.trim() === `${stat.ino} ${stat.birthtimeNs}`) await fsp.rm(lockPath, { force: true });
  }
}
