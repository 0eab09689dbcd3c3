import { readFileSync, rmSync, writeFileSync } from 'node:fs';

/**
 * One process at a time: `path` is created exclusively and holds the holder's pid. A lock
 * whose process is gone (a crash, a kill -9) is taken over. Throws `refuse(pid)` while a live
 * process holds it, `refuse()` when it cannot be taken at all; returns the release.
 */
export function pidLock(path: string, refuse: (pid?: number) => Error): () => void {
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      writeFileSync(path, String(process.pid), { flag: 'wx' });
      return () => rmSync(path, { force: true });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
    const pid = Number(readFileSync(path, 'utf8'));
    if (pid && pid !== process.pid && alive(pid)) throw refuse(pid);
    rmSync(path, { force: true });
  }
  throw refuse();
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
