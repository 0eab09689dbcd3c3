import { createReadStream, promises as fsp } from 'node:fs';
import { Readable } from 'node:stream';
import { constants, createInflate, inflateSync } from 'node:zlib';

/** Bytes of a loose object read to find its `type size\0` header: far more than any header deflates to. */
const HEADER_PROBE = 4096;

/** Inclusive byte range of a blob's content. */
export interface ByteRange {
  start: number;
  end: number;
}

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

/**
 * A loose blob's content (or `range` of it) inflated as it is read: memory stays at a few
 * chunks whatever the blob's size, and reading stops at the range's end.
 */
export function looseBlobStream(path: string, range?: ByteRange): Readable {
  async function* content() {
    const file = createReadStream(path);
    const inflate = createInflate();
    file.on('error', (err) => inflate.destroy(err));
    file.pipe(inflate);
    // The `blob <size>\0` header, until its NUL has arrived; then undefined.
    let header: Buffer | undefined = Buffer.alloc(0);
    let at = 0;
    try {
      for await (const piece of inflate as AsyncIterable<Buffer>) {
        let chunk = piece;
        if (header !== undefined) {
          header = Buffer.concat([header, chunk]);
          const nul = header.indexOf(0);
          if (nul < 0) continue;
          chunk = header.subarray(nul + 1);
          header = undefined;
        }
        const from = range ? Math.max(0, range.start - at) : 0;
        const to = range ? Math.min(chunk.length, range.end + 1 - at) : chunk.length;
        at += chunk.length;
        if (to > from) yield chunk.subarray(from, to);
        if (range && at > range.end) return;
      }
    } finally {
      file.destroy();
    }
  }
  return Readable.from(content(), { objectMode: false });
}
