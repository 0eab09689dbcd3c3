import { createHash, randomBytes } from 'node:crypto';
import { createReadStream, fstatSync, promises as fsp } from 'node:fs';
import { join } from 'node:path';
import { ObjectSink, uploadDir } from './blob-stream.js';

/** How many times a file that keeps changing size while it is read is read again before giving up. */
const ATTEMPTS = 3;

/** Raised when an open file's size moved while it was read (an editor still writing it). */
class SizeMoved extends Error {}

/** The `size` bytes of the open file `fd` from its start, streamed; SizeMoved when it holds another number. */
async function* bytesOf(fd: number, size: number): AsyncGenerator<Uint8Array> {
  let seen = 0;
  if (size > 0) {
    for await (const chunk of createReadStream('', { fd, start: 0, end: size - 1, autoClose: false })) {
      seen += (chunk as Buffer).byteLength;
      yield chunk as Buffer;
    }
  }
  if (seen !== size || fstatSync(fd).size !== size) throw new SizeMoved();
}

/** Runs `pass` over the file's bytes at its current size, again (up to ATTEMPTS) when the size moved meanwhile. */
async function readingWhole<T>(fd: number, pass: (size: number, bytes: AsyncIterable<Uint8Array>) => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    const size = fstatSync(fd).size;
    try {
      return await pass(size, bytesOf(fd, size));
    } catch (err) {
      if (!(err instanceof SizeMoved) || attempt === ATTEMPTS) throw err;
    }
  }
}

/** The git blob id of an open file, hashed as a stream: what `git hash-object` prints, at a few chunks of memory. */
export function hashOpenFile(fd: number): Promise<{ oid: string; size: number }> {
  return readingWhole(fd, async (size, bytes) => {
    const sha = createHash('sha1').update(`blob ${size}\0`);
    for await (const chunk of bytes) sha.update(chunk);
    return { oid: sha.digest('hex'), size };
  });
}

/**
 * Stores an open file as a loose blob object, read and deflated as a stream (the watcher
 * committing a big file dropped into the folder, a reconcile before a write): its id and
 * size. The object is given to `written` for the commit's fsyncs.
 */
export function storeOpenFile(gitdir: string, fd: number, written: (path: string) => void): Promise<{ oid: string; size: number }> {
  return readingWhole(fd, async (size, bytes) => {
    const dir = uploadDir(gitdir);
    await fsp.mkdir(dir, { recursive: true });
    const tmp = join(dir, `${randomBytes(8).toString('hex')}.object`);
    const sink = new ObjectSink(tmp, size);
    try {
      await sink.writeAll(bytes);
      const { oid, path } = await sink.finish(gitdir);
      written(path);
      return { oid, size };
    } catch (err) {
      sink.abort();
      await fsp.rm(tmp, { force: true });
      throw err;
    }
  });
}
