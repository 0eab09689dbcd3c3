import type { AnyOperation } from '../../server/ops/operation.js';

/** The REST request an operation's binding implies: path parameters, then query or JSON body. */
export function restRequest(op: AnyOperation, input: Record<string, unknown>): { path: string; init: RequestInit & { json?: unknown } } {
  const rest = { ...input };
  const path = op.rest!.path.replace(/([:*])(\w+)/g, (_m, kind: string, name: string) => {
    const value = String(rest[name]);
    delete rest[name];
    return kind === '*' ? value.split('/').map(encodeURIComponent).join('/') : encodeURIComponent(value);
  });
  const method = op.rest!.method.toUpperCase();
  if (method === 'GET' || method === 'DELETE') {
    const query = new URLSearchParams(Object.entries(rest).map(([k, v]) => [k, String(v)]));
    return { path: query.size ? `${path}?${query}` : path, init: { method } };
  }
  return { path, init: { method, json: rest } };
}
