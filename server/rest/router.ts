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

/**
 * RFC 9110 §13.1.2: weak comparison against each listed tag, `*` matching any. Not
 * `req.fresh`: it also honours a request's `Cache-Control: no-cache`, which fetch adds to
 * every conditional request, so no fetch client would ever get its 304.
 */
function matchesIfNoneMatch(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  return header.split(',').some((tag) => {
    const t = tag.trim();
    return t === '*' || t.replace(/^W\//, '') === `"${etag}"`;
  });
}

function route(services: Services, op: AnyOperation): RequestHandler {
  const rest = op.rest!;
  return async (req, res) => {
    if (req.method !== 'GET') requireJson(req);
    const { result } = await invoke(services, op, req.credential!, 'rest', restInput(req, op), (rate) => setRateHeaders(res, rate));
    if (isRawResult(result)) return result.send(res);
    const etag = rest.etag?.(result);
    if (etag) {
      // A strong validator (a blob id names exactly these bytes): a client holding it gets 304, no body.
      res.setHeader('ETag', `"${etag}"`);
      if (matchesIfNoneMatch(req.headers['if-none-match'], etag)) return void res.status(304).end();
    }
    res.status(rest.status?.(result) ?? 200).json(result);
  };
}

/** Where the REST router is mounted; operations' REST paths start with it. */
export const REST_PREFIX = '/vault';

/**
 * `/vault/...`: one route per catalog operation that has a REST binding, mounted at
 * `REST_PREFIX` ahead of the other surfaces so an API request meets only its own
 * middleware. Routes are grouped by their first segment (`page`, `search`, …) and a request
 * tries only its group's: matching all of them in turn was a tenth of a page read. Bodies are
 * parsed only for methods that carry one.
 */
export function restRouter(services: Services, catalog: AnyOperation[]): Router {
  const router = express.Router();
  // Generous enough for a maximal page JSON-escaped; the page limit itself is checked per field.
  const json = express.json({ limit: services.config.maxPageBytes * 6 + 65536 });
  router.use((req, res, next) => (req.method === 'GET' || req.method === 'HEAD' ? next() : json(req, res, next)), authenticate(services));
  const groups = new Map<string, Router>();
  for (const op of catalog) {
    if (!op.rest) continue;
    if (!op.rest.path.startsWith(`${REST_PREFIX}/`)) throw new Error(`${op.name}: REST paths start with ${REST_PREFIX}/`);
    const path = op.rest.path.slice(REST_PREFIX.length);
    const segment = path.split('/')[1];
    if (!/^[a-z]+$/.test(segment)) throw new Error(`${op.name}: a REST path's first segment is a plain word`);
    if (!groups.has(segment)) groups.set(segment, express.Router());
    groups.get(segment)![op.rest.method](path.replace(PAGE_WILDCARD, '{/*$1}'), route(services, op));
  }
  router.use((req, res, next) => {
    const group = groups.get(req.path.split('/', 2)[1]);
    if (group) group(req, res, next);
    else next();
  });
  router.use((req, _res, next) => next(new QuireError('NOT_FOUND', `No such endpoint: ${req.method} ${req.originalUrl.split('?')[0]}`)));
  router.use(jsonErrorHandler(services.log));
  return router;
}
