import { createHash, randomBytes } from 'node:crypto';
import { createReadStream, writeFileSync } from 'node:fs';

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
