/** One API call timed from the client's side (keep-alive `fetch`, body read whole). */
export interface Reply<T = Record<string, unknown>> {
  status: number;
  body: T;
  ms: number;
}

/** A client of one server for one key: `call('GET', '/vault/search?q=x')`. */
export function apiClient(url: string, key: string) {
  const authorization = `Bearer ${key}`;
  return async function call<T = Record<string, unknown>>(method: string, path: string, json?: unknown): Promise<Reply<T>> {
    const started = performance.now();
    const res = await fetch(`${url}${path}`, {
      method,
      headers: json === undefined ? { authorization } : { authorization, 'content-type': 'application/json' },
      body: json === undefined ? undefined : JSON.stringify(json),
    });
    const text = await res.text();
    const ms = performance.now() - started;
    return { status: res.status, body: (text ? JSON.parse(text) : {}) as T, ms };
  };
}

export type ApiCall = ReturnType<typeof apiClient>;

/** Like `call`, but an answer other than 2xx is an error naming the request. */
export async function ok<T = Record<string, unknown>>(call: ApiCall, method: string, path: string, json?: unknown): Promise<Reply<T>> {
  const reply = await call<T>(method, path, json);
  if (reply.status >= 300) throw new Error(`${method} ${path}: ${reply.status} ${JSON.stringify(reply.body).slice(0, 300)}`);
  return reply;
}
