import type { IncomingHttpHeaders } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
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

/** One answer as the retry loop and the error mapping need it, whichever transport fetched it. */
interface Reply {
  status: number;
  header(name: string): string | null;
  text(): Promise<string>;
  discard(): Promise<void>;
}

const RETRIED = new Set([429, 502, 503, 504]);
const MAX_BACKOFF_MS = 30_000;

/**
 * The one door to the server: the key on every request, JSON both ways, retries with back-off
 * for what passes (network errors, 429, 503, honouring `Retry-After`), and the failures a
 * person must act on turned into SyncErrors that say what to do. Any other error answer
 * becomes a SyncError of kind `refused` carrying the server's code and details.
 */
export class HttpClient {
  private readonly base: string;

  constructor(private readonly options: HttpOptions) {
    this.base = options.server.replace(/\/+$/, '');
  }

  /**
   * A JSON request, over node:http rather than fetch: fetch's first call loads and compiles
   * undici, about 100 ms of an idle `quire sync` run that sends only JSON requests.
   */
  async request(method: string, path: string, json?: unknown): Promise<HttpAnswer> {
    const headers: Record<string, string> = { accept: 'application/json', authorization: `Bearer ${this.options.key}` };
    const body = json === undefined ? undefined : JSON.stringify(json);
    if (body !== undefined) headers['content-type'] = 'application/json';
    const reply = await this.retrying(true, undefined, () => nodeRequest(method, `${this.base}${path}`, headers, body));
    return this.answer(reply, method, path);
  }

  /**
   * A request whose success is not JSON (a file's bytes): the response itself, its body
   * unread; an error answer is turned into a SyncError as for `request`. `retry` false: one
   * attempt (a long-poll, whose caller decides when to ask again).
   */
  async raw(
    method: string,
    path: string,
    init: { headers?: Record<string, string>; body?: BodyInit; signal?: AbortSignal; retry?: boolean } = {},
  ): Promise<Response> {
    const send = () =>
      fetch(`${this.base}${path}`, {
        method,
        headers: { authorization: `Bearer ${this.options.key}`, ...init.headers },
        body: init.body,
        signal: init.signal,
      });
    const reply = await this.retrying(init.retry !== false, init.signal, async () => fetchReply(await send()));
    if (reply.res.ok || reply.status === 304) return reply.res;
    await this.answer(reply, method, path);
    throw new SyncError('server', `${method} ${path.split('?')[0]} answered ${reply.status}`);
  }

  /** Sends until an answer that is not worth retrying, or the attempts run out. */
  private async retrying<R extends Reply>(retry: boolean, signal: AbortSignal | undefined, send: () => Promise<R>): Promise<R> {
    const attempts = retry ? (this.options.attempts ?? 8) : 1;
    let delay = this.options.backoffMs ?? 250;
    for (let attempt = 1; ; attempt++) {
      let reply: R;
      try {
        reply = await send();
      } catch (err) {
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
      // node:http follows no redirect (and fetch drops the key on one to another origin).
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

function fetchReply(res: Response): Reply & { res: Response } {
  return {
    res,
    status: res.status,
    header: (name) => res.headers.get(name),
    text: () => res.text(),
    discard: async () => void (await res.body?.cancel()),
  };
}

/** A request over node:http(s), its body read whole; a network error rejects as fetch's would. */
async function nodeRequest(method: string, url: string, headers: Record<string, string>, body: string | undefined): Promise<Reply> {
  // Imported when used: TLS is loaded only for an https server.
  const { request } = url.startsWith('https:') ? await import('node:https') : await import('node:http');
  return new Promise((resolve, reject) => {
    const req = request(url, { method, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('error', reject);
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        resolve({
          status: res.statusCode ?? 0,
          header: (name) => headerOf(res.headers, name),
          text: async () => text,
          discard: async () => {},
        });
      });
    });
    req.on('error', (err) => reject(Object.assign(new Error(err.message), { cause: err })));
    req.end(body);
  });
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
