import { createReadStream, promises as fsp } from 'node:fs';
import { Readable } from 'node:stream';
import { constants, inflateSync } from 'node:zlib';
import { inflatedRange, type ByteRange } from './inflate-stream.js';

/** Bytes of a loose object read to find its `type size\0` header: far more than any header deflates to. */
const HEADER_PROBE = 4096;

/** A loose object's type and size from its header, inflating only its first bytes; undefined when there is no such file. */
export async function looseHeader(path: string): Promise<{ type: string; size: number } | undefined> {
  let handle: fsp.FileHandle;
  try {
    handle = await fsp.open(path, 'r');
  } catch {
    return undefined;
  }
  try {
    const { buffer, bytesRead } = await handle.read(Buffer.alloc(HEADER_PROBE), 0, HEADER_PROBE, 0);
    // A prefix of a zlib stream: inflate what it holds instead of failing on the missing end.
    const head = inflateSync(buffer.subarray(0, bytesRead), { finishFlush: constants.Z_SYNC_FLUSH });
    const nul = head.indexOf(0);
    const [type, size] = head.subarray(0, nul).toString().split(' ');
    if (nul < 0 || !/^\d+$/.test(size)) throw new Error(`Malformed object header in ${path}`);
    return { type, size: Number(size) };
  } finally {
    await handle.close();
  }
}

/** A loose blob's content (or `range` of it), inflated as it is sent (see inflatedRange). */
export function looseBlobStream(path: string, range?: ByteRange): Readable {
  return inflatedRange(createReadStream(path), { range, skipHeader: true });
}
