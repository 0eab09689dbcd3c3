import { createHash } from 'node:crypto';

/** The git blob id of some bytes: what `git hash-object` prints. */
export function hashBlob(data: Uint8Array): string {
  return createHash('sha1').update(`blob ${data.byteLength}\0`).update(data).digest('hex');
}
