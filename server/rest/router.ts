import express, { type Request, type RequestHandler, type Response } from 'express';
import { QuireError } from '../../vault-store/errors.js';
import { bearerToken, credentialForKey, looksLikeApiKey } from '../auth/api-key.js';
import type { Credential } from '../auth/credential.js';
import { matchesIfNoneMatch } from '../http/conditional.js';
import { setRateHeaders } from '../http/rate-headers.js';
import { sendJson } from '../http/send-json.js';
import { invoke } from '../ops/invoke.js';
import { isRawResult } from '../ops/raw-result.js';
import type { AnyOperation } from '../ops/operation.js';
import type { RateState } from '../ratelimit/limiter.js';
import type { Services } from '../services.js';
import { jsonErrorHandler } from './errors.js';
import { RouteTable, type RestRoute, type RouteMatch } from './route-table.js';

/** REST accepts personal API keys only; OAuth tokens are for MCP. */
async function authenticate(services: Services, req: Request): Promise<Credential> {
  const token = bearerToken(req.headers.authorization);
  if (!token) throw new QuireError('UNAUTHENTICATED', 'Send an API key as "Authorization: Bearer <key>"');
  if (!looksLikeApiKey(token))
    throw new QuireError('UNAUTHENTICATED', 'Only personal API keys work on the REST API; OAuth tokens are for MCP only');
  const credential = await credentialForKey(services, token);
  if (!credential) throw new QuireError('UNAUTHENTICATED', 'Unknown or revoked API key');
  return credential;
}

/**
 * Query, then JSON body, then the fields the route takes from headers, then path params (a
 * missing wildcard is the empty path, so `GET /vault/page/` is refused as INVALID_PATH rather
 * than as an unknown endpoint).
 */
function restInput(req: Request, route: RestRoute, params: Record<string, string>): Record<string, unknown> {
  if (req.body !== undefined && (typeof req.body !== 'object' || req.body === null || Array.isArray(req.body))) {
    throw new QuireError('INVALID_REQUEST', 'Request body must be a JSON object');
  }
  return { ...req.query, ...(req.body ?? {}), ...route.op.rest!.headers?.(req.headers), ...params };
}

/** The body of a `bytes: 'in'` route, unread: the handler streams it. */
function rawBody(req: Request): { stream: AsyncIterable<Uint8Array>; size?: number } {
  const length = req.headers['content-length'];
  return { stream: req, size: length === undefined ? undefined : Number(length) };
}

/** Aborted when the client closes its connection before the answer was sent. */
function abandoned(res: Response): AbortSignal {
  const controller = new AbortController();
  res.on('close', () => {
    if (!res.writableFinished) controller.abort();
  });
  return controller.signal;
}

function requireJson(req: Request): void {
  const hasBody = Number(req.headers['content-length'] ?? 0) > 0 || req.headers['transfer-encoding'] !== undefined;
  if (hasBody && !req.is('application/json')) throw new QuireError('INVALID_REQUEST', 'Send the request body as application/json');
}

async function answer(services: Services, req: Request, res: Response, { route, params }: RouteMatch): Promise<void> {
  const { op } = route;
  const rest = op.rest!;
  const bytesIn = rest.bytes === 'in';
  if (req.method !== 'GET' && !bytesIn) requireJson(req);
  const input = restInput(req, route, params);
  const onRate = (rate: RateState) => setRateHeaders(res, rate);
  const { result } = await invoke(services, op, req.credential!, 'rest', input, {
    onRate,
    body: bytesIn ? rawBody(req) : undefined,
    signal: abandoned(res),
    // The request carries the key it was authenticated with: asking again is one cached lookup.
    recheck: async () => (await credentialForKey(services, bearerToken(req.headers.authorization) ?? '')) !== undefined,
  });
  if (isRawResult(result)) return result.send(res, req);
  const etag = rest.etag?.(result);
  if (etag) {
    // A strong validator (a blob id names exactly these bytes): a client holding it gets 304, no body.
    res.setHeader('ETag', `"${etag}"`);
    if (matchesIfNoneMatch(req.headers['if-none-match'], etag)) return void res.status(304).end();
  }
  sendJson(res, rest.status?.(result) ?? 200, result);
}

/** As Express's router answers OPTIONS for a path some route serves: the methods, as text. */
function sendAllow(res: Response, methods: string[]): void {
  const allow = methods.join(', ');
  res.setHeader('Allow', allow);
  res.setHeader('Content-Type', 'text/plain');
  res.setHeader('Content-Length', Buffer.byteLength(allow));
  res.end(allow);
}

/**
 * `/vault/...`: one route per catalog operation that has a REST binding, mounted at
 * `REST_PREFIX` ahead of the other surfaces so an API request meets only its own code: the
 * key is checked first (an unknown endpoint is a 401 without one), then the route is found
 * in the `RouteTable`. Bodies are parsed only for methods that carry one. Every outcome is
 * answered here, errors as JSON.
 */
export function restRouter(services: Services, catalog: AnyOperation[]): RequestHandler {
  const table = new RouteTable(catalog);
  // Generous enough for a maximal page JSON-escaped; the page limit itself is checked per field.
  const json = express.json({ limit: services.config.maxPageBytes * 6 + 65536 });
  const onError = jsonErrorHandler(services.log);
  const handle = async (req: Request, res: Response) => {
    req.credential = await authenticate(services, req);
    const found = table.find(req.method, req.url);
    if (found) {
      req.params = found.params;
      // As Express does when a route matches, so the request log names the pattern.
      req.route = { path: found.route.pattern };
      return answer(services, req, res, found);
    }
    const methods = req.method === 'OPTIONS' ? table.methods(req.url) : [];
    if (methods.length) return sendAllow(res, methods);
    throw new QuireError('NOT_FOUND', `No such endpoint: ${req.method} ${req.originalUrl.split('?')[0]}`);
  };
  return (req, res, next) => {
    const fail = (err: unknown) => {
      // A body refused unread (too large, no right to write) is not read to its end to keep
      // the connection: the answer closes it.
      if (!req.complete && !res.headersSent) res.setHeader('Connection', 'close');
      onError(err, req, res, next);
    };
    if (req.method === 'GET' || req.method === 'HEAD' || table.find(req.method, req.url)?.route.op.rest?.bytes === 'in') {
      return void handle(req, res).catch(fail);
    }
    json(req, res, (err?: unknown) => (err ? fail(err) : void handle(req, res).catch(fail)));
  };
}
