import { Readable } from 'node:stream';
import { createInflate } from 'node:zlib';

/** Inclusive byte range of a blob's content. */
export interface ByteRange {
  start: number;
  end: number;
}

/**
 * The content of a zlib stream (a loose object's file, a packed object's bytes) inflated as
 * it is read: memory stays at a few chunks whatever its size, and reading stops at the
 * range's end. `skipHeader` drops a loose object's `type size\0` header first.
 */
export function inflatedRange(compressed: Readable, options: { range?: ByteRange; skipHeader: boolean }): Readable {
  const { range } = options;
  async function* content() {
    const inflate = createInflate();
    compressed.on('error', (err) => inflate.destroy(err));
    compressed.pipe(inflate);
    // The header, until its NUL has arrived; then undefined.
    let header: Buffer | undefined = options.skipHeader ? Buffer.alloc(0) : undefined;
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
      compressed.destroy();
    }
  }
  return Readable.from(content(), { objectMode: false });
}
