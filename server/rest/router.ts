import express, { type Request, type RequestHandler, type Router } from 'express';
import { QuireError } from '../../vault-store/errors.js';
import { bearerToken, credentialForKey, looksLikeApiKey } from '../auth/api-key.js';
import { invoke } from '../ops/invoke.js';
import type { AnyOperation } from '../ops/operation.js';
import type { RateState } from '../ratelimit/limiter.js';
import type { Services } from '../services.js';
import { jsonErrorHandler } from './errors.js';
import { isRawResult } from '../ops/raw-result.js';

/** REST accepts personal API keys only; OAuth tokens are for MCP. */
function authenticate(services: Services): RequestHandler {
  return async (req, _res, next) => {
    const token = bearerToken(req.headers.authorization);
    if (!token) return next(new QuireError('UNAUTHENTICATED', 'Send an API key as "Authorization: Bearer <key>"'));
    if (!looksLikeApiKey(token))
      return next(new QuireError('UNAUTHENTICATED', 'Only personal API keys work on the REST API; OAuth tokens are for MCP only'));
    const credential = await credentialForKey(services, token);
    if (!credential) return next(new QuireError('UNAUTHENTICATED', 'Unknown or revoked API key'));
    req.credential = credential;
    next();
  };
}

/** A route's trailing `/*name` wildcard: the page path of the operation. */
const PAGE_WILDCARD = /\/\*(\w+)$/;

/** Where page paths begin in REST URLs (`/vault/page/`, …). */
export function pagePathPrefixes(catalog: readonly AnyOperation[]): string[] {
  return catalog.flatMap((op) => (op.rest && PAGE_WILDCARD.test(op.rest.path) ? [op.rest.path.replace(PAGE_WILDCARD, '/')] : []));
}

/**
 * Path params (a `*path` wildcard arrives as segments), query, then JSON body. The
 * wildcard is bound optional (`/vault/page{/*path}`) and a missing one is the empty path,
 * so `GET /vault/page/` is refused as INVALID_PATH rather than as an unknown endpoint.
 */
function restInput(req: Request, op: AnyOperation): Record<string, unknown> {
  const wildcard = PAGE_WILDCARD.exec(op.rest!.path)?.[1];
  const params = Object.fromEntries(Object.entries(req.params).map(([k, v]) => [k, Array.isArray(v) ? v.join('/') : v]));
  if (wildcard) params[wildcard] ??= '';
  if (req.body !== undefined && (typeof req.body !== 'object' || req.body === null || Array.isArray(req.body))) {
    throw new QuireError('INVALID_REQUEST', 'Request body must be a JSON object');
  }
  return { ...req.query, ...(req.body ?? {}), ...params };
}

function requireJson(req: Request): void {
  const hasBody = Number(req.headers['content-length'] ?? 0) > 0 || req.headers['transfer-encoding'] !== undefined;
  if (hasBody && !req.is('application/json')) throw new QuireError('INVALID_REQUEST', 'Send the request body as application/json');
}

function setRateHeaders(res: express.Response, rate: RateState): void {
  res.setHeader('X-RateLimit-Limit', String(rate.limit));
  res.setHeader('X-RateLimit-Remaining', String(rate.remaining));
  res.setHeader('X-RateLimit-Bucket', rate.bucket);
}

function route(services: Services, op: AnyOperation): RequestHandler {
  return async (req, res) => {
    if (req.method !== 'GET') requireJson(req);
    const { result } = await invoke(services, op, req.credential!, 'rest', restInput(req, op), (rate) => setRateHeaders(res, rate));
    if (isRawResult(result)) return result.send(res);
    res.status(op.rest!.status?.(result) ?? 200).json(result);
  };
}

/** `/vault/...`: one route per catalog operation that has a REST binding. */
export function restRouter(services: Services, catalog: AnyOperation[]): Router {
  const router = express.Router();
  // Generous enough for a maximal page JSON-escaped; the page limit itself is checked per field.
  router.use('/vault', express.json({ limit: services.config.maxPageBytes * 6 + 65536 }), authenticate(services));
  for (const op of catalog) {
    if (op.rest) router[op.rest.method](op.rest.path.replace(PAGE_WILDCARD, '{/*$1}'), route(services, op));
  }
  router.use('/vault', (req, _res, next) => next(new QuireError('NOT_FOUND', `No such endpoint: ${req.method} ${req.path}`)));
  router.use(jsonErrorHandler(services.log));
  return router;
}
