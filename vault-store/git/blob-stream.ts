import { createHash, randomBytes, type Hash } from 'node:crypto';
import { createReadStream, createWriteStream, promises as fsp } from 'node:fs';
import { once } from 'node:events';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { createDeflate, type Deflate } from 'node:zlib';
import { QuireError } from '../errors.js';
import { blobLevel, SAMPLE_BYTES } from './zlib-level.js';

/**
 * A blob written to git from a stream: its id and size, and `file`, a copy of its bytes in
 * the upload folder (same file system as the vault) that the commit moves into the working
 * tree by rename, so no step ever holds the whole file in memory.
 */
export interface StoredBlob {
  oid: string;
  size: number;
  file: string;
}

/** Where uploads wait for their commit: inside `.git`, which git and the watcher ignore. Emptied at open. */
export function uploadDir(gitdir: string): string {
  return join(gitdir, 'quire-uploads');
}

/**
 * A loose object being written as bytes arrive: SHA-1 and deflate over `blob <size>\0` and
 * the bytes, in one pass. The first SAMPLE_BYTES are held until the zlib level is chosen
 * from them (blobLevel).
 */
export class ObjectSink {
  private readonly sha = createHash('sha1');
  private deflate: Deflate | undefined;
  private done: Promise<void> | undefined;
  /** What arrived before the level was chosen, the header first. */
  private held: Buffer[] = [];
  private heldBytes = 0;

  constructor(
    private readonly tmp: string,
    size: number,
  ) {
    this.push(Buffer.from(`blob ${size}\0`));
  }

  private push(chunk: Uint8Array): boolean {
    (this.sha as Hash).update(chunk);
    if (this.deflate) return this.deflate.write(chunk);
    this.held.push(Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength));
    this.heldBytes += chunk.byteLength;
    return this.heldBytes < SAMPLE_BYTES || this.start();
  }

  /** Chooses the level from what is held, starts deflating into the temp file and hands it all over. */
  private start(): boolean {
    const held = Buffer.concat(this.held);
    this.held = [];
    const deflate = createDeflate({ level: blobLevel(held) });
    this.deflate = deflate;
    this.done = pipeline(deflate, createWriteStream(this.tmp, { flags: 'wx' }));
    // Awaited in `write` and `finish`; a failure while neither waits must not go unhandled.
    this.done.catch(() => undefined);
    return deflate.write(held);
  }

  async write(chunk: Uint8Array): Promise<void> {
    if (!this.push(chunk)) await Promise.race([once(this.deflate!, 'drain'), this.done]);
  }

  async writeAll(source: AsyncIterable<Uint8Array>): Promise<void> {
    for await (const chunk of source) await this.write(chunk);
  }

  /** Finishes the object and moves it into `objects/`; returns its id and the path written. */
  async finish(gitdir: string): Promise<{ oid: string; path: string }> {
    if (!this.deflate) this.start();
    this.deflate!.end();
    await this.done;
    const oid = this.sha.digest('hex');
    const dir = join(gitdir, 'objects', oid.slice(0, 2));
    const path = join(dir, oid.slice(2));
    await fsp.mkdir(dir, { recursive: true });
    await fsync(this.tmp);
    // An object already there has these very bytes (same id): git's objects are immutable.
    await fsp.rename(this.tmp, path);
    return { oid, path };
  }

  abort(): void {
    this.deflate?.destroy();
  }
}

async function fsync(path: string): Promise<void> {
  const handle = await fsp.open(path, 'r+');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

function tooLarge(bytes: number, maxBytes: number): QuireError {
  return new QuireError('PAYLOAD_TOO_LARGE', `File is over ${bytes} bytes; the limit is ${maxBytes} bytes (max_file_bytes)`, {
    limit: maxBytes,
    limit_name: 'max_file_bytes',
  });
}

/**
 * Streams `source` into a loose blob object and a copy for the working tree, refused with
 * PAYLOAD_TOO_LARGE as soon as more than `maxBytes` arrive. With `size` (a Content-Length)
 * the object is hashed and deflated as the bytes arrive; without, the copy is written first
 * and the object made from it. Both are fsynced (outside the write queue, where a big file's
 * fsync would hold every other write); the object is also given to `written` for the commit's
 * own round of fsyncs. On failure nothing is left behind.
 */
export async function storeBlobStream(
  gitdir: string,
  source: AsyncIterable<Uint8Array>,
  options: { size?: number; maxBytes: number },
  written: (path: string) => void,
): Promise<StoredBlob> {
  const { size, maxBytes } = options;
  if (size !== undefined && size > maxBytes) throw tooLarge(size, maxBytes);
  const dir = uploadDir(gitdir);
  await fsp.mkdir(dir, { recursive: true });
  const name = randomBytes(8).toString('hex');
  const file = join(dir, `${name}.file`);
  const tmpObject = join(dir, `${name}.object`);
  const copy = await fsp.open(file, 'wx');
  let sink = size === undefined ? undefined : new ObjectSink(tmpObject, size);
  let received = 0;
  try {
    try {
      // Not `for await`: leaving it early would destroy the request, and with it the socket
      // the 413 is to be answered on.
      const chunks = source[Symbol.asyncIterator]();
      for (let next = await chunks.next(); !next.done; next = await chunks.next()) {
        const chunk = next.value;
        received += chunk.byteLength;
        if (received > maxBytes) throw tooLarge(received, maxBytes);
        if (size !== undefined && received > size) break;
        await copy.write(chunk);
        await sink?.write(chunk);
      }
      if (size !== undefined && received !== size) {
        throw new QuireError('INVALID_REQUEST', `The body has ${received} bytes, not the ${size} its Content-Length announced`);
      }
      await copy.sync();
    } finally {
      await copy.close();
    }
    if (!sink) {
      sink = new ObjectSink(tmpObject, received);
      await sink.writeAll(createReadStream(file));
    }
    const { oid, path } = await sink.finish(gitdir);
    written(path);
    return { oid, size: received, file };
  } catch (err) {
    sink?.abort();
    await Promise.all([fsp.rm(file, { force: true }), fsp.rm(tmpObject, { force: true })]);
    throw err;
  }
}
