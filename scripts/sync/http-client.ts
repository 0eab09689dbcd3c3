import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import { FileMoved } from './big-files.js';
import { SyncError } from './sync-error.js';

export interface HttpOptions {
  server: string;
  key: string;
  /** Attempts per request for network errors, 429 and 503 (the first included). */
  attempts?: number;
  /** First back-off delay; doubled per attempt, up to 30 s, unless the server says `Retry-After`. */
  backoffMs?: number;
  /** Told about each wait, so the user sees why nothing moves. */
  onRetry?: (why: string, waitMs: number) => void;
}

export interface HttpAnswer {
  status: number;
  body: Record<string, unknown>;
}

/** One answer as the retry loop and the error mapping need it. */
interface Reply {
  status: number;
  header(name: string): string | null;
  /** The body as text (read whole before the reply unless streamed). */
  text(): Promise<string>;
  discard(): Promise<void>;
  res: IncomingMessage;
}

const RETRIED = new Set([429, 502, 503, 504]);

/** A wait; not node:timers/promises, a module to load that most runs, which never wait, would not use. */
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
const MAX_BACKOFF_MS = 30_000;

/**
 * The one door to the server: the key on every request, JSON both ways, retries with back-off
 * for what passes (network errors, 429, 503, honouring `Retry-After`), and the failures a
 * person must act on turned into SyncErrors that say what to do. Any other error answer
 * becomes a SyncError of kind `refused` carrying the server's code and details.
 * Everything goes over node:http, never fetch: fetch's first call loads undici (~100 ms and
 * ~35 MB of a short run), and reading a 96 MiB answer as a stream grew a process by ~80 MB
 * through fetch against ~37 MB through node:http.
 */
export class HttpClient {
  private readonly base: string;

  constructor(private readonly options: HttpOptions) {
    this.base = options.server.replace(/\/+$/, '');
  }

  /** A JSON request. */
  async request(method: string, path: string, json?: unknown): Promise<HttpAnswer> {
    if (json === undefined) return this.send(method, path, {});
    return this.send(method, path, { 'content-type': 'application/json' }, JSON.stringify(json));
  }

  /**
   * A request whose answer is JSON, with a body of the caller's: text, bytes, or a big file
   * written piece by piece from disk (`content-length` is the caller's to give). A body that
   * fails with FileMoved is not retried: it is rethrown. `retry` false: one attempt (a
   * long-poll, whose caller decides when to ask again).
   */
  async send(
    method: string,
    path: string,
    headers: Record<string, string>,
    body?: RequestBody,
    options: { signal?: AbortSignal; retry?: boolean } = {},
  ): Promise<HttpAnswer> {
    const reply = await this.sending(method, path, { accept: 'application/json', ...headers }, body, options);
    return this.answer(reply, method, path);
  }

  /**
   * A GET whose success is a file's bytes: the response, its body unread, for the caller to
   * read at its pace (node:http stops reading the socket while it waits). An error answer
   * becomes a SyncError.
   */
  async download(path: string): Promise<IncomingMessage> {
    const reply = await this.sending('GET', path, {}, undefined, { stream: true });
    if (reply.status >= 200 && reply.status < 300) return reply.res;
    await this.answer(reply, 'GET', path);
    throw new SyncError('server', `GET ${path.split('?')[0]} answered ${reply.status}`);
  }

  private sending(
    method: string,
    path: string,
    headers: Record<string, string>,
    body: RequestBody | undefined,
    options: { signal?: AbortSignal; retry?: boolean; stream?: boolean },
  ): Promise<Reply> {
    const all = { authorization: `Bearer ${this.options.key}`, ...headers };
    const stream = options.stream === true;
    return this.retrying(options.retry !== false, options.signal, () =>
      nodeRequest(method, `${this.base}${path}`, all, body, options.signal, stream),
    );
  }

  /** Sends until an answer that is not worth retrying, or the attempts run out. */
  private async retrying(retry: boolean, signal: AbortSignal | undefined, send: () => Promise<Reply>): Promise<Reply> {
    const attempts = retry ? (this.options.attempts ?? 8) : 1;
    let delay = this.options.backoffMs ?? 250;
    for (let attempt = 1; ; attempt++) {
      let reply: Reply;
      try {
        reply = await send();
      } catch (err) {
        const moved = movedIn(err);
        if (moved) throw moved;
        if (attempt >= attempts || signal?.aborted) throw unreachable(this.base, err);
        await this.wait(`cannot reach ${this.base} (${causeOf(err)})`, delay);
        delay = Math.min(delay * 2, MAX_BACKOFF_MS);
        continue;
      }
      if (RETRIED.has(reply.status) && attempt < attempts) {
        await reply.discard();
        const retryAfter = Number(reply.header('retry-after'));
        await this.wait(`the server answered ${reply.status}`, Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter * 1000 : delay);
        delay = Math.min(delay * 2, MAX_BACKOFF_MS);
        continue;
      }
      return reply;
    }
  }

  private async wait(why: string, ms: number): Promise<void> {
    this.options.onRetry?.(why, ms);
    await sleep(ms);
  }

  private async answer(res: Reply, method: string, path: string): Promise<HttpAnswer> {
    const location = res.header('location');
    if (res.status >= 300 && res.status < 400 && res.status !== 304 && location) {
      // node:http follows no redirect: the key is never sent on to another address.
      throw new SyncError('server', `${method} ${path.split('?')[0]} redirects to ${location}: give that server address as --server.`);
    }
    const text = await res.text();
    let body: unknown;
    try {
      body = text === '' ? {} : JSON.parse(text);
    } catch {
      body = undefined;
    }
    if (body === undefined || typeof body !== 'object' || body === null) {
      throw new SyncError(
        'server',
        `${this.base} is not a Quire server: ${method} ${path.split('?')[0]} answered ${res.status} without Quire's JSON.`,
      );
    }
    const fields = body as Record<string, unknown>;
    if ((res.status >= 200 && res.status < 300) || res.status === 304) return { status: res.status, body: fields };
    const code = typeof fields.code === 'string' ? fields.code : undefined;
    const message = typeof fields.message === 'string' ? fields.message : `HTTP ${res.status}`;
    if (res.status === 401) {
      throw new SyncError(
        'auth',
        `The server refused the key (${message}): it is unknown or was revoked. Create a device key with "quire key create USER --name DEVICE --scope write --device".`,
        code,
      );
    }
    if (code === undefined) {
      throw new SyncError(
        'server',
        `${this.base} is not a Quire server: ${method} ${path.split('?')[0]} answered ${res.status} without an error code.`,
      );
    }
    if (code === 'PLAN_REQUIRED') throw new SyncError('key', `Your plan does not include the REST API: ${message}`, code);
    return Promise.reject(new SyncError('refused', message, code, { ...fields, status: res.status }));
  }
}

/**
 * What `send` sends: text, bytes, or a function writing the body piece by piece, called
 * afresh for each attempt; `write` resolves once the socket is done with the piece.
 */
export type RequestBody = string | Uint8Array | ((write: (chunk: Uint8Array) => Promise<void>) => Promise<void>);

/** A request over node:http(s); a network error rejects. */
async function nodeRequest(
  method: string,
  url: string,
  headers: Record<string, string>,
  body: RequestBody | undefined,
  signal: AbortSignal | undefined,
  /** A success's body is left for the caller to read (a file's bytes). */
  stream: boolean,
): Promise<Reply> {
  // Imported when used: TLS is loaded only for an https server.
  const { request } = url.startsWith('https:') ? await import('node:https') : await import('node:http');
  return new Promise((resolve, reject) => {
    const req = request(url, { method, headers, signal }, (res) => {
      const reply = (text: () => Promise<string>): Reply => ({
        status: res.statusCode ?? 0,
        header: (name) => headerOf(res.headers, name),
        text,
        discard: async () => void res.resume(),
        res,
      });
      if (stream && res.statusCode! >= 200 && res.statusCode! < 300) return resolve(reply(() => Promise.reject(new Error('streamed'))));
      // Any other answer is read whole here, so that a connection lost on the way is retried.
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('error', reject);
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        resolve(reply(async () => text));
      });
    });
    // Why the body stopped, when it did: the request then fails with "socket hang up", which says less.
    let bodyFailed: unknown;
    req.on('error', (err) => reject(bodyFailed ?? Object.assign(new Error(err.message), { cause: err })));
    if (typeof body !== 'function') return void req.end(body);
    const write = (chunk: Uint8Array) => new Promise<void>((done, fail) => req.write(chunk, (err) => (err ? fail(err) : done())));
    // An answer before the body is all sent (a 413) ends the request early: the answer decides.
    body(write).then(
      () => req.end(),
      (err: unknown) => {
        bodyFailed = err;
        req.destroy(err as Error);
      },
    );
  });
}

/** The FileMoved a body failed with, if that is why a request failed. */
function movedIn(err: unknown): FileMoved | undefined {
  for (let cause = err; cause instanceof Error; cause = cause.cause) if (cause instanceof FileMoved) return cause;
  return undefined;
}

function headerOf(headers: IncomingHttpHeaders, name: string): string | null {
  const value = headers[name];
  return value === undefined ? null : Array.isArray(value) ? value.join(', ') : value;
}

function causeOf(err: unknown): string {
  const cause = (err as { cause?: { code?: string; message?: string } }).cause;
  return cause?.code ?? cause?.message ?? (err as Error).message;
}

function unreachable(base: string, err: unknown): SyncError {
  return new SyncError('network', `Cannot reach ${base}: ${causeOf(err)}. Check the --server address and that the server runs.`);
}
