import { promisify } from 'node:util';
import { crc32, deflateRaw, deflateRawSync } from 'node:zlib';

const deflateRawAsync = promisify(deflateRaw);

export const STORED = 0;
export const DEFLATED = 8;

/** One file ready to be written: name, bytes as stored in the archive, and what unzip checks. */
export interface ZipEntry {
  name: Buffer;
  method: typeof STORED | typeof DEFLATED;
  crc: number;
  size: number;
  data: Buffer;
  /** Unix mode (file type and permissions), kept in the external attributes. */
  mode: number;
}

// Formats that are already compressed: deflating them costs time and saves nothing.
const PACKED =
  /\.(png|jpe?g|gif|webp|avif|heic|zip|gz|tgz|bz2|xz|7z|rar|pdf|docx|xlsx|pptx|epub|mp3|m4a|aac|ogg|opus|flac|mp4|m4v|mov|webm|mkv|woff2?)$/i;
/** Below this, deflate saves a few bytes at most. */
const MIN_DEFLATE = 256;
/** Up to this size deflate runs inline (< 1 ms); a thread-pool round trip per small page cost more than the work. */
const INLINE_DEFLATE = 64 * 1024;
/**
 * zlib's fastest level. On the 10k vault: level 1 gives a 19.8 MB archive in 1.4 s,
 * level 6 19.0 MB in 2.1 s; 4% of size is not worth 50% more time.
 */
const LEVEL = 1;

/**
 * Prepares an entry: text (pages, most attachments) is deflated, and kept deflated only
 * when that made it smaller; media and archives are stored as they are.
 */
export async function prepareEntry(path: string, raw: Buffer, mode: number): Promise<ZipEntry> {
  if (raw.length >= 0xffffffff) throw new Error(`${path} is too large for a zip entry`);
  const entry: ZipEntry = { name: Buffer.from(path, 'utf8'), method: STORED, crc: crc32(raw), size: raw.length, data: raw, mode };
  if (raw.length < MIN_DEFLATE || PACKED.test(path)) return entry;
  const deflated = raw.length < INLINE_DEFLATE ? deflateRawSync(raw, { level: LEVEL }) : await deflateRawAsync(raw, { level: LEVEL });
  return deflated.length < raw.length ? { ...entry, method: DEFLATED, data: deflated } : entry;
}
