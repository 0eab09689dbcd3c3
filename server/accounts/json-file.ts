import { existsSync, promises as fsp, readFileSync, statSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { atomicWriteFile } from '../../vault-store/atomic-file.js';

const LOCK_STALE_MS = 10_000;
const LOCK_WAIT_MS = 5_000;

/**
 * A JSON document on disk shared by the server and CLI processes. Reads reload when the file
 * changed underneath (so `quire key revoke` takes effect on a running server); updates take a
 * lock file, re-read, apply and replace the file atomically, so two processes never lose
 * each other's changes.
 */
export class JsonFile<T> {
  private data: T | undefined;
  private stamp = '';

  constructor(readonly path: string, private readonly empty: () => T) {}

  read(): T {
    const stamp = this.currentStamp();
    if (this.data === undefined || stamp !== this.stamp) {
      this.data = stamp ? (JSON.parse(readFileSync(this.path, 'utf8')) as T) : this.empty();
      this.stamp = stamp;
    }
    return this.data;
  }

  async update<R>(change: (data: T) => R): Promise<R> {
    const release = await this.lock();
    try {
      this.stamp = '';
      const data = structuredClone(this.read());
      const result = change(data);
      await atomicWriteFile(this.path, `${JSON.stringify(data, null, 2)}\n`);
      this.data = data;
      this.stamp = this.currentStamp();
      return result;
    } finally {
      await release();
    }
  }

  private currentStamp(): string {
    if (!existsSync(this.path)) return '';
    const s = statSync(this.path);
    return `${s.ino}:${s.size}:${s.mtimeMs}`;
  }

  private async lock(): Promise<() => Promise<void>> {
    const lockPath = `${this.path}.lock`;
    const deadline = Date.now() + LOCK_WAIT_MS;
    for (;;) {
      try {
        const handle = await fsp.open(lockPath, 'wx');
        await handle.close();
        return () => fsp.rm(lockPath, { force: true });
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
        // A process that died holding the lock must not wedge every later update.
        const age = Date.now() - (await fsp.stat(lockPath).then((s) => s.mtimeMs, () => Date.now()));
        if (age > LOCK_STALE_MS) await fsp.rm(lockPath, { force: true });
        else if (Date.now() > deadline) throw new Error(`Timed out waiting for ${lockPath}`);
        else await sleep(20);
      }
    }
  }
}
