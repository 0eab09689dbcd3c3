import { promises as fsp } from 'node:fs';
import { dirname, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fsyncDir } from '../atomic-file.js';
import { QuireError } from '../errors.js';

/** How long a lock held by git is waited for before the vault answers VAULT_BUSY. */
export const LOCK_WAIT_MS = 3_000;

/**
 * Where this server notes the lock files it holds (name → inode and change time), so that
 * after a crash it removes its own leftovers and never a lock some git command holds.
 */
const MARKERS = 'quire-locks';

export interface LockOptions {
  /** How long to wait for a lock someone else holds; LOCK_WAIT_MS by default. */
  waitMs?: number;
  /** fsync the new file and its folder before the rename (refs: yes; the index: no). */
  durable?: boolean;
}

/**
 * git's lock-file protocol over one file of the repository (`refs/heads/main`, `index`):
 * create `<file>.lock` exclusively, write the new content into it, rename it over the file.
 * Whoever creates the lock owns the file until the rename or the release, so git commands
 * (`commit`, `pull`, `receive-pack`) and the server serialise on it: each waits or fails,
 * neither overwrites the other.
 */
export class LockFile {
  /** Renamed into place or given up: the lock file is no longer ours to remove. */
  private done = false;

  private constructor(
    private readonly gitdir: string,
    readonly target: string,
    private readonly handle: fsp.FileHandle,
  ) {}

  /** Takes the lock on `gitdir/target`, waiting while someone else holds it; VAULT_BUSY after the wait. */
  static async acquire(gitdir: string, target: string, options: LockOptions = {}): Promise<LockFile> {
    const path = join(gitdir, `${target}.lock`);
    const deadline = Date.now() + (options.waitMs ?? LOCK_WAIT_MS);
    for (let pause = 2; ; pause = Math.min(pause * 2, 50)) {
      try {
        const handle = await fsp.open(path, 'wx');
        const lock = new LockFile(gitdir, target, handle);
        await lock.mark();
        return lock;
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'ENOENT') await fsp.mkdir(dirname(path), { recursive: true });
        else if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
        else if (Date.now() >= deadline) throw await lockBusy(gitdir, target);
        else await sleep(pause);
      }
    }
  }

  /** Writes `data` as the file's new content and releases the lock by renaming it into place. */
  async commit(data: string | Uint8Array, options: LockOptions = {}): Promise<void> {
    const lockPath = join(this.gitdir, `${this.target}.lock`);
    if (this.done) throw new Error(`${this.target}.lock was already released`);
    try {
      await this.handle.writeFile(data);
      if (options.durable) await this.handle.sync();
      await this.handle.close();
      await fsp.rename(lockPath, join(this.gitdir, this.target));
    } catch (err) {
      await this.release();
      throw err;
    }
    this.done = true;
    await this.unmark();
    if (options.durable) await fsyncDir(dirname(lockPath));
  }

  /** Gives the lock up without changing the file; nothing once the lock is committed or released. */
  async release(): Promise<void> {
    if (this.done) return;
    this.done = true;
    await this.handle.close().catch(() => undefined);
    await fsp.rm(join(this.gitdir, `${this.target}.lock`), { force: true });
    await this.unmark();
  }

  private markerPath(): string {
    return join(this.gitdir, MARKERS, encodeURIComponent(this.target));
  }

  private async mark(): Promise<void> {
    const stat = await this.handle.stat({ bigint: true });
    await fsp.mkdir(join(this.gitdir, MARKERS), { recursive: true });
    await fsp.writeFile(this.markerPath(), `${stat.ino} ${stat.birthtimeNs}\n`);
  }

  private async unmark(): Promise<void> {
    await fsp.rm(this.markerPath(), { force: true });
  }
}

/**
 * After a crash: removes the lock files this server left (the marker's inode and change
 * time still match the file) and the stale markers. A lock with no marker, or another
 * file at the marker's name, belongs to git and stays.
 */
export async function removeOwnStaleLocks(gitdir: string): Promise<void> {
  const folder = join(gitdir, MARKERS);
  for (const name of await fsp.readdir(folder).catch(() => [])) {
    const marker = join(folder, name);
    const lockPath = join(gitdir, `${decodeURIComponent(name)}.lock`);
    const [noted, stat] = await Promise.all([
      fsp.readFile(marker, 'utf8').catch(() => ''),
      fsp.lstat(lockPath, { bigint: true }).catch(() => undefined),
    ]);
    if (stat && noted.trim() === `${stat.ino} ${stat.birthtimeNs}`) await fsp.rm(lockPath, { force: true });
    await fsp.rm(marker, { force: true });
  }
}

async function lockBusy(gitdir: string, target: string): Promise<QuireError> {
  const name = `.git/${target}.lock`;
  const stat = await fsp.lstat(join(gitdir, `${target}.lock`)).catch(() => undefined);
  const held = stat ? ` for ${Math.max(1, Math.round((Date.now() - stat.mtimeMs) / 1000))} s` : '';
  return new QuireError(
    'VAULT_BUSY',
    `git holds ${name} in the vault folder${held}; writes wait until it is released (if no git command is running, remove that file)`,
    { retry_after: 2, state: 'locked', lock: name },
  );
}
