import { promisify } from 'node:util';
import { inflate, inflateSync } from 'node:zlib';

const inflateAsync = promisify(inflate);
/** Below this, a thread-pool round trip costs more than inflating on the spot. */
const INLINE_BYTES = 64 * 1024;
/** The largest output buffer sized from a header; a bigger object is inflated in chunks of this size. */
const MAX_CHUNK = 4 * 2 ** 20;

/**
 * zlib inflate: inline for the small objects that make up a vault, off-thread for big ones.
 * With `size` (a pack entry's header gives it) the output buffer is made to fit: zlib's
 * default of 16 KB per call was ~4× a page, and reading a 10k-page vault left ~20 MB more
 * freed memory behind in the allocator (RSS) than reading it into buffers of their own size.
 */
export function inflateObject(deflated: Buffer, size?: number): Buffer | Promise<Buffer> {
  // One byte to spare: a buffer filled exactly makes zlib ask for another chunk to find the end.
  const options = size === undefined ? {} : { chunkSize: Math.min(Math.max(64, size + 1), MAX_CHUNK) };
  return deflated.length < INLINE_BYTES ? inflateSync(deflated, options) : inflateAsync(deflated, options);
}
