import { createHash } from 'node:crypto';
import { open } from 'node:fs/promises';

/**
 * Files above this size never sit whole in the client's memory: they are hashed, uploaded
 * and downloaded as streams (through a temp file beside their place when downloaded). Below
 * it, reading a file whole is the cheaper way for the many small files a vault is made of.
 */
export const BIG_FILE_BYTES = 8 * 1024 * 1024;

/** A local file sent from disk as it is read: the version the scan hashed. */
export interface FileSource {
  /** Absolute path. */
  file: string;
  size: number;
  hash: string;
}

/** What an upload sends: bytes in memory, or a big file streamed from disk. */
export type UploadBody = Uint8Array | FileSource;

/** The file changed since the scan hashed it: not sent, looked at again next pass. */
export class FileMoved extends Error {
  constructor(file: string) {
    super(`${file} changed while it was being sent`);
  }
}

/** The piece of a big file read, hashed or sent at a time: the buffers are reused, so memory stays a few of these. */
export const CHUNK_BYTES = 1024 * 1024;

/**
 * Sends `source` through `write` from two reused buffers, checked against its hash before
 * the last piece goes: a file an editor rewrites meanwhile ends the body with FileMoved
 * instead, so the server receives a short body and commits nothing, never a torn mix.
 * `write` resolves once the socket is done with a piece, so its buffer can be read into again.
 */
export async function sendChecked(source: FileSource, write: (chunk: Uint8Array) => Promise<void>): Promise<void> {
  const sha = createHash('sha1').update(`blob ${source.size}\0`);
  const buffers = [Buffer.allocUnsafe(CHUNK_BYTES), Buffer.allocUnsafe(CHUNK_BYTES)];
  const handle = await open(source.file, 'r');
  try {
    let sending: Promise<void> | undefined;
    for (let at = 0, turn = 0; at < source.size; turn ^= 1) {
      const buffer = buffers[turn];
      const { bytesRead } = await handle.read(buffer, 0, Math.min(CHUNK_BYTES, source.size - at), at);
      if (bytesRead === 0) throw new FileMoved(source.file);
      const piece = buffer.subarray(0, bytesRead);
      sha.update(piece);
      at += bytesRead;
      if (at === source.size && sha.digest('hex') !== source.hash) throw new FileMoved(source.file);
      await sending; // in order; this also frees the other buffer for the next read
      sending = write(piece);
    }
    await sending;
  } finally {
    await handle.close();
  }
}
