import { deflateRawSync } from 'node:zlib';

/** How much of a blob is looked at before its zlib level is chosen. */
export const SAMPLE_BYTES = 64 * 1024;
/** A sample that level 1 shrinks by less than this share is not worth deflating. */
const MIN_SAVING = 0.05;

/**
 * The zlib level of a blob that starts with `data`: git's loose default (1), or 0 (stored)
 * when level 1 barely shrinks its first SAMPLE_BYTES. Photos, video, PDFs and archives are
 * compressed already; deflating them gains nothing (deflate falls back to stored blocks) at
 * ~25 ms of CPU a MiB here, ~15 times what storing costs: a 200 MiB upload took 10.1 s, now
 * 5.1 s (`npm run bench -- attachments`). Blobs shorter than a sample keep level 1.
 */
export function blobLevel(data: Uint8Array): 0 | 1 {
  if (data.byteLength < SAMPLE_BYTES) return 1;
  const sample = data.subarray(0, SAMPLE_BYTES);
  return deflateRawSync(sample, { level: 1 }).byteLength > SAMPLE_BYTES * (1 - MIN_SAVING) ? 0 : 1;
}

/**
 * The zlib level of an object: a blob's by blobLevel, a commit's git's default (1), a tree's
 * stored (0). A tree is a rewrite of a whole folder per commit, mostly 20-byte ids that do not
 * compress: a folder of 1,600 pages is 93 KB stored, 65 KB at level 1, which cost 2.1 ms a
 * commit against 0.2 (`git gc` compresses and deltifies them when run).
 */
export function zlibLevel(type: 'blob' | 'tree' | 'commit', body: Uint8Array): number {
  return type === 'blob' ? blobLevel(body) : type === 'tree' ? 0 : 1;
}
