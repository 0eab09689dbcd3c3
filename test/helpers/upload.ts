import { request, type ClientRequest } from 'node:http';

/** `count` chunks of `chunk`, produced as they are sent: the test holds one chunk, never the file. */
export async function* repeated(chunk: Buffer, count: number): AsyncIterable<Buffer> {
  for (let i = 0; i < count; i++) yield chunk;
}

function drainedOrClosed(req: ClientRequest): Promise<void> {
  return new Promise((done) => {
    const go = () => {
      req.off('drain', go).off('close', go);
      done();
    };
    req.on('drain', go).on('close', go);
  });
}

/**
 * A streamed PUT over node's http client: with `length` it is sent as the Content-Length,
 * without it the body goes chunked. Resolves with the status and body (the server may answer
 * and close before the body is all sent: that is an answer too).
 */
export function streamUpload(
  url: string,
  key: string,
  body: AsyncIterable<Buffer>,
  options: { length?: number; headers?: Record<string, string> } = {},
): Promise<{ status: number; body: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string | number> = { authorization: `Bearer ${key}`, ...options.headers };
    if (options.length !== undefined) headers['content-length'] = options.length;
    let answered = false;
    const req = request(url, { method: 'PUT', headers }, (res) => {
      answered = true;
      const parts: Buffer[] = [];
      res.on('data', (part: Buffer) => parts.push(part));
      res.on('end', () => {
        const text = Buffer.concat(parts).toString();
        resolve({ status: res.statusCode!, body: text ? (JSON.parse(text) as Record<string, unknown>) : {} });
      });
    });
    req.on('error', reject);
    void (async () => {
      for await (const chunk of body) {
        // Once answered, the rest is not read: writing on would hit a socket the response
        // no longer listens to for errors (EPIPE thrown as uncaught when the server closed it).
        if (req.destroyed || answered) return;
        if (!req.write(chunk)) await drainedOrClosed(req);
      }
      req.end();
    })();
  });
}
