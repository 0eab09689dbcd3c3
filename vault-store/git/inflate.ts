import { promisify } from 'node:util';
import { inflate, inflateSync } from 'node:zlib';

const inflateAsync = promisify(inflate);
/** Below this, a thread-pool round trip costs more than inflating on the spot. */
const INLINE_BYTES = 64 * 1024;

/** zlib inflate: inline for the small objects that make up a vault, off-thread for big ones. */
export function inflateObject(deflated: Buffer): Buffer | Promise<Buffer> {
  return deflated.length < INLINE_BYTES ? inflateSync(deflated) : inflateAsync(deflated);
}
