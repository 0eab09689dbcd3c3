import { execFileSync } from 'node:child_process';
import { chmodSync, closeSync, fstatSync, openSync, readdirSync, readFileSync, readSync, writeSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Damages an object the server wrote (they go into packs, one per batch): its compressed
 * bytes in the pack are overwritten, so reading it fails as on a damaged disk.
 */
export function corruptPackedObject(repoDir: string, oid: string): void {
  const dir = join(repoDir, '.git/objects/pack');
  for (const name of readdirSync(dir).filter((n) => n.endsWith('.idx'))) {
    const listing = execFileSync('git', ['show-index'], { cwd: repoDir, input: readFileSync(join(dir, name)), encoding: 'utf8' });
    const line = listing.split('\n').find((l) => l.split(' ')[1] === oid);
    if (!line) continue;
    const pack = join(dir, name.replace(/\.idx$/, '.pack'));
    chmodSync(pack, 0o644);
    const fd = openSync(pack, 'r+');
    try {
      const header = Buffer.alloc(16);
      let at = Number(line.split(' ')[0]);
      readSync(fd, header, 0, header.length, at);
      for (let i = 0; header[i] & 0x80; i++) at++; // the type-and-size header, then zlib
      writeSync(fd, Buffer.from('not deflated at all'), 0, 19, at + 1);
    } finally {
      closeSync(fd);
    }
    return;
  }
  throw new Error(`${oid} is in no pack`);
}

/** Zeroes every object of every pack in place (readers holding a pack open see it too): nothing packed can be read. */
export function zeroPacks(repoDir: string): void {
  const dir = join(repoDir, '.git/objects/pack');
  for (const name of readdirSync(dir).filter((n) => n.endsWith('.pack'))) {
    const pack = join(dir, name);
    chmodSync(pack, 0o644);
    const fd = openSync(pack, 'r+');
    try {
      const size = fstatSync(fd).size;
      writeSync(fd, Buffer.alloc(size - 32), 0, size - 32, 12);
    } finally {
      closeSync(fd);
    }
  }
}
