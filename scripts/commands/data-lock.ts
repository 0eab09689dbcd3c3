import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { pidLock } from '../pid-lock.js';

/**
 * One server per data folder: each vault's write queue lives in one process, and two
 * processes writing the same repository would orphan each other's commits. A lock left
 * by a crashed server (its pid is gone) is taken over.
 */
export function lockDataDir(dataDir: string): () => void {
  mkdirSync(dataDir, { recursive: true });
  return pidLock(join(dataDir, 'server.pid'), (pid) =>
    pid ? new Error(`Another quire server (pid ${pid}) is using ${dataDir}`) : new Error(`Could not lock ${dataDir}`),
  );
}
