import { QuireError } from '../../vault-store/errors.js';

/**
 * Reads a request body (already gunzipped) into memory, refusing it with PAYLOAD_TOO_LARGE
 * as soon as it passes `maxBytes`; a broken stream (bad gzip, a client gone) is INVALID_REQUEST.
 */
export function readBody(body: NodeJS.ReadableStream, maxBytes: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size <= maxBytes) return void chunks.push(chunk);
      body.removeListener('data', onData);
      body.pause();
      reject(
        new QuireError(
          'PAYLOAD_TOO_LARGE',
          `Push refused: it is larger than this server's limit of ${maxBytes} bytes. Push fewer or smaller files at a time.`,
          { limit: maxBytes },
        ),
      );
    };
    body.on('data', onData);
    body.once('end', () => resolve(Buffer.concat(chunks, size)));
    body.once('error', (err: Error) => reject(new QuireError('INVALID_REQUEST', `The push could not be read: ${err.message}`)));
  });
}
