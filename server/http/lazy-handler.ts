import type { RequestHandler } from 'express';

/**
 * A surface loaded on its first request: the MCP SDK, the OAuth server and the account
 * pages are ~15 MB of a fresh server's RSS that a server used only over REST never needs.
 * `claims` says, from the path alone, which requests may be the surface's (a superset is
 * fine: the loaded router passes on what it does not route); the others pass by without
 * loading it. A failed load is retried on the next request.
 */
export function lazyHandler(build: () => Promise<RequestHandler>, claims: (path: string) => boolean = () => true): RequestHandler {
  let built: Promise<RequestHandler> | undefined;
  return (req, res, next) => {
    if (!claims(req.path)) return next();
    built ??= build().catch((err: unknown) => {
      built = undefined;
      throw err;
    });
    built.then((handler) => handler(req, res, next), next);
  };
}

/** Whether a path is `prefix` or below it, as Express matches routes: case-insensitive, trailing slash allowed. */
export function under(prefix: string): (path: string) => boolean {
  const lower = prefix.toLowerCase();
  return (path) => {
    const p = path.toLowerCase();
    return p === lower || p.startsWith(`${lower}/`);
  };
}

/** One value built on first call and shared by every caller after (a failure is retried). */
export function once<T>(build: () => Promise<T>): () => Promise<T> {
  let value: Promise<T> | undefined;
  return () =>
    (value ??= build().catch((err: unknown) => {
      value = undefined;
      throw err;
    }));
}
