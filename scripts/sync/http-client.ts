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
  headers: Headers;
  body: Record<string, unknown>;
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

  async request(method: string, path: string, json?: unknown): Promise<HttpAnswer> {
    const res = await this.fetch(method, path, {
      headers: { accept: 'application/json', ...(json === undefined ? {} : { 'content-type': 'application/json' }) },
      body: json === undefined ? undefined : JSON.stringify(json),
    });
    return this.answer(res, method, path);
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
    const res = await this.fetch(method, path, init);
    if (res.ok || res.status === 304) return res;
    await this.answer(res, method, path);
    throw new SyncError('server', `${method} ${path.split('?')[0]} answered ${res.status}`);
  }

  private async fetch(
    method: string,
    path: string,
    init: { headers?: Record<string, string>; body?: BodyInit; signal?: AbortSignal; retry?: boolean },
  ): Promise<Response> {
    const attempts = init.retry === false ? 1 : (this.options.attempts ?? 8);
    let delay = this.options.backoffMs ?? 250;
    for (let attempt = 1; ; attempt++) {
      let res: Response;
      try {
        res = await fetch(`${this.base}${path}`, {
          method,
          headers: { authorization: `Bearer ${this.options.key}`, ...init.headers },
          body: init.body,
          signal: init.signal,
        });
      } catch (err) {
        if (attempt >= attempts || init.signal?.aborted) throw unreachable(this.base, err);
        await this.wait(`cannot reach ${this.base} (${causeOf(err)})`, delay);
        delay = Math.min(delay * 2, MAX_BACKOFF_MS);
        continue;
      }
      if (RETRIED.has(res.status) && attempt < attempts) {
        await res.body?.cancel();
        const retryAfter = Number(res.headers.get('retry-after'));
        await this.wait(`the server answered ${res.status}`, Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter * 1000 : delay);
        delay = Math.min(delay * 2, MAX_BACKOFF_MS);
        continue;
      }
      return res;
    }
  }

  private async wait(why: string, ms: number): Promise<void> {
    this.options.onRetry?.(why, ms);
    await sleep(ms);
  }

  private async answer(res: Response, method: string, path: string): Promise<HttpAnswer> {
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
    if (res.ok || res.status === 304) return { status: res.status, headers: res.headers, body: fields };
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

function causeOf(err: unknown): string {
  const cause = (err as { cause?: { code?: string; message?: string } }).cause;
  return cause?.code ?? cause?.message ?? (err as Error).message;
}

function unreachable(base: string, err: unknown): SyncError {
  return new SyncError('network', `Cannot reach ${base}: ${causeOf(err)}. Check the --server address and that the server runs.`);
}
