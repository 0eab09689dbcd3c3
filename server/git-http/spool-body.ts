import { createWriteStream, mkdirSync, readdirSync, rmSync } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { finished } from 'node:stream';
import { QuireError } from '../../vault-store/errors.js';

/** Spool folders are named `push-XXXXXX` inside the spool directory. */
const PREFIX = 'push-';

/** A request body waiting on disk for git; `remove` deletes it (safe to call more than once). */
export interface Spool {
  path: string;
  size: number;
  remove: () => Promise<void>;
}

/**
 * Writes a request body (already gunzipped) to a new file under `dir`, counting bytes, so a
 * push of any size costs the server disk rather than memory. Refused with PAYLOAD_TOO_LARGE as
 * soon as it passes `maxBytes`; a broken stream (bad gzip, a client gone mid-upload) is
 * INVALID_REQUEST. On any failure the file is deleted before the promise rejects. A refused
 * body is paused, not destroyed, so the 413 can still be sent on its connection.
 */
export async function spoolBody(body: NodeJS.ReadableStream, maxBytes: number, dir: string): Promise<Spool> {
  // Watched before the first await: bad gzip fails at once, and the error listener stays, so a
  // late error of a refused body is not an uncaught one either. Not `stream.finished`: it waits
  // for a request's 'close', which comes only once the response is done.
  const ended = new Promise<Error | undefined>((done) => {
    body.once('end', () => done(undefined));
    body.on('error', done);
    body.once('close', () => done(new Error('the connection closed before the whole push was sent')));
  });
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const folder = await mkdtemp(join(dir, PREFIX));
  const remove = () => rm(folder, { recursive: true, force: true });
  const path = join(folder, 'body');
  const out = createWriteStream(path, { flags: 'wx', mode: 0o600 });
  let size = 0;
  try {
    await new Promise<void>((resolve, reject) => {
      let refused = false;
      const fail = (err: Error) => {
        if (refused) return;
        refused = true;
        body.removeListener('data', onData);
        body.pause();
        out.destroy();
        reject(err);
      };
      const onData = (chunk: Buffer) => {
        size += chunk.length;
        if (size > maxBytes) return fail(tooLarge(maxBytes));
        if (!out.write(chunk)) {
          body.pause();
          out.once('drain', () => refused || body.resume());
        }
      };
      body.on('data', onData);
      // Ended, failed (bad gzip) or closed before its end (the client left).
      void ended.then((err) => {
        if (refused) return;
        if (err) return fail(new QuireError('INVALID_REQUEST', `The push could not be read: ${err.message}`));
        out.end();
      });
      // A full disk is the server's failure, not the client's: logged, answered 500.
      finished(out, (err) => (err ? fail(err) : resolve()));
    });
  } catch (err) {
    if (!out.closed) await new Promise<void>((done) => out.once('close', () => done()));
    await remove();
    throw err;
  }
  return { path, size, remove };
}

function tooLarge(maxBytes: number): QuireError {
  return new QuireError(
    'PAYLOAD_TOO_LARGE',
    `Push refused: it is larger than your plan's limit of ${maxBytes} bytes. Push fewer or smaller files at a time.`,
    { limit: maxBytes },
  );
}

/**
 * Deletes spooled bodies a previous run left behind (a crash mid-push). Only for start-up:
 * one server owns a data folder, and no push is under way yet.
 */
export function removeLeftoverSpools(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  for (const name of readdirSync(dir)) {
    if (name.startsWith(PREFIX)) rmSync(join(dir, name), { recursive: true, force: true });
  }
}
