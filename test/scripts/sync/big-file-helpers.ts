import { createHash, randomBytes } from 'node:crypto';
import { createReadStream, writeFileSync } from 'node:fs';
import { tempDir } from '../../helpers/temp-dir.js';
import type { TestServer } from '../../helpers/test-server.js';
import { syncSuite, type SyncSuite } from './sync-helpers.js';

export const MIB = 1024 * 1024;

/** A file's git blob id, read as a stream. */
export async function blobId(file: string, size: number): Promise<string> {
  const sha = createHash('sha1').update(`blob ${size}\0`);
  for await (const chunk of createReadStream(file)) sha.update(chunk as Buffer);
  return sha.digest('hex');
}

/** A big file of random bytes, written in pieces so the test itself stays small. */
export function writeBig(file: string, size: number): void {
  const piece = randomBytes(MIB);
  writeFileSync(file, '');
  for (let done = 0; done < size; done += MIB) writeFileSync(file, piece.subarray(0, Math.min(MIB, size - done)), { flag: 'a' });
}

export interface BigFileSuite {
  server: TestServer;
  owner: string;
  device: string;
  dir: string;
  /** A folder outside the synced one, for the files a test compares with. */
  scratch: string;
}

/** syncSuite with ana's keys and one folder, plus a scratch folder, for each test of the calling suite. */
export function bigFileSuite(take: (suite: BigFileSuite) => void): void {
  let sync: SyncSuite;
  let scratch: { path: string; cleanup: () => void };
  syncSuite((s) => (sync = s), { keys: true });
  beforeEach(() => {
    scratch = tempDir('quire-big-');
    take({ server: sync.server, owner: sync.owner, device: sync.device, dir: sync.dirs[0], scratch: scratch.path });
  });
  afterEach(() => scratch.cleanup());
}
