import type { Request, RequestHandler } from 'express';
import type { Credential } from '../auth/credential.js';
import type { Logger } from './logger.js';

declare module 'express-serve-static-core' {
  interface Request {
    /** Who is calling: each surface sets it when it authenticates (REST, MCP, git, account area). */
    credential?: Credential;
  }
}

const KIND = { api_key: 'key', oauth: 'oauth', session: 'session' } as const;

/**
 * Express sets `req.route` when a route matches, and resets `req.baseUrl` when an error leaves
 * a router: the full pattern is only known at that moment, so it is taken there. The pattern,
 * never the URL, whose query may carry a token and whose path names the caller's pages.
 */
function watchRoute(req: Request): () => string | undefined {
  let route: { path: string } | undefined;
  let pattern: string | undefined;
  Object.defineProperty(req, 'route', {
    configurable: true,
    enumerable: true,
    get: () => route,
    set: (value: { path: string }) => {
      route = value;
      pattern = `${req.baseUrl}${value.path}`;
    },
  });
  return () => pattern;
}

/**
 * One `info` line per request, when it ends (answered or cut short): method, route pattern
 * (null when no route matched), status, milliseconds, and who called — the user and the kind
 * of credential, never the credential itself.
 */
export function requestLog(log: Logger): RequestHandler {
  // The level is set once at start-up; below info, a request costs nothing here.
  if (!log.isLevelEnabled('info')) return (_req, _res, next) => next();
  return (req, res, next) => {
    const started = performance.now();
    const route = watchRoute(req);
    res.once('close', () => {
      const credential = req.credential;
      log.info(
        {
          method: req.method,
          route: route() ?? null,
          status: res.statusCode,
          ms: Math.round(performance.now() - started),
          user: credential?.user ?? null,
          credential: credential ? KIND[credential.kind] : 'none',
          // The client left before the answer was complete: `status` is what was meant, not sent.
          ...(res.writableFinished ? {} : { aborted: true }),
        },
        'request',
      );
    });
    next();
  };
}
