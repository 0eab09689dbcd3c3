import type { IncomingMessage, ServerResponse } from 'node:http';
import { parse as parseQuery } from 'node:querystring';
import express, { type Request, type Response } from 'express';
import { QuireError } from '../../vault-store/errors.js';
import { bearerToken, credentialForKey, looksLikeApiKey } from '../auth/api-key.js';
import type { Credential } from '../auth/credential.js';
import { matchesIfNoneMatch } from '../http/conditional.js';
import { sendError, toQuireError } from '../http/errors.js';
import { malformedUrl } from '../http/malformed-url.js';
import { setRateHeaders } from '../http/rate-headers.js';
import { setSecurityHeaders } from '../http/security-headers.js';
import { sendJson } from '../http/send-json.js';
import { requestLog } from '../log/request-log.js';
import { invoke } from '../ops/invoke.js';
import { isRawResult } from '../ops/raw-result.js';
import type { AnyOperation } from '../ops/operation.js';
import type { RateState } from '../ratelimit/limiter.js';
import type { Services } from '../services.js';
import { pagePathPrefixes, REST_PREFIX, RouteTable, type RestRoute, type RouteMatch } from './route-table.js';

/** A REST request: node's own, with what the router learns of it (the request log reads `credential` and `route`). */
interface RestRequest extends IncomingMessage {
  credential?: Credential;
  body?: unknown;
  baseUrl?: string;
  route?: { path: string };
}

/** REST accepts personal API keys only; OAuth tokens are for MCP. */
async function authenticate(services: Services, req: RestRequest): Promise<Credential> {
  const token = bearerToken(req.headers.authorization);
  if (!token) throw new QuireError('UNAUTHENTICATED', 'Send an API key as "Authorization: Bearer <key>"');
  if (!looksLikeApiKey(token))
    throw new QuireError('UNAUTHENTICATED', 'Only personal API keys work on the REST API; OAuth tokens are for MCP only');
  const credential = await credentialForKey(services, token);
  if (!credential) throw new QuireError('UNAUTHENTICATED', 'Unknown or revoked API key');
  return credential;
}

/**
 * Query (parsed as Express's default "simple" parser does: node's querystring), then JSON
 * body, then the fields the route takes from headers, then path params (a missing wildcard
 * is the empty path, so `GET /vault/page/` is refused as INVALID_PATH rather than as an
 * unknown endpoint).
 */
function restInput(req: RestRequest, route: RestRoute, params: Record<string, string>): Record<string, unknown> {
  if (req.body !== undefined && (typeof req.body !== 'object' || req.body === null || Array.isArray(req.body))) {
    throw new QuireError('INVALID_REQUEST', 'Request body must be a JSON object');
  }
  const mark = req.url!.indexOf('?');
  const query = mark === -1 ? {} : parseQuery(req.url!.slice(mark + 1));
  return { ...query, ...(req.body ?? {}), ...route.op.rest!.headers?.(req.headers), ...params };
}

/** The body of a `bytes: 'in'` route, unread: the handler streams it. */
function rawBody(req: RestRequest): { stream: AsyncIterable<Uint8Array>; size?: number } {
  const length = req.headers['content-length'];
  return { stream: req, size: length === undefined ? undefined : Number(length) };
}

/**
 * Aborted when the client closes its connection before the answer was sent; made when first
 * asked for, as only handlers that wait ask (an AbortController per request was ~1% of a page
 * read). A connection closed by then gives a signal already aborted.
 */
function abandoned(res: ServerResponse): () => AbortSignal {
  let controller: AbortController | undefined;
  return () => {
    if (controller) return controller.signal;
    const made = (controller = new AbortController());
    if (res.destroyed && !res.writableFinished) made.abort();
    else res.on('close', () => !res.writableFinished && made.abort());
    return made.signal;
  };
}

/** As `req.is('application/json')`: the media type, whatever its parameters. */
const JSON_TYPE = /^\s*application\/json\s*(;|$)/i;

function requireJson(req: RestRequest): void {
  const hasBody = Number(req.headers['content-length'] ?? 0) > 0 || req.headers['transfer-encoding'] !== undefined;
  if (hasBody && !JSON_TYPE.test(req.headers['content-type'] ?? '')) {
    throw new QuireError('INVALID_REQUEST', 'Send the request body as application/json');
  }
}

async function answer(services: Services, req: RestRequest, res: ServerResponse, { route, params }: RouteMatch): Promise<void> {
  const { op } = route;
  const rest = op.rest!;
  const bytesIn = rest.bytes === 'in';
  if (req.method !== 'GET' && !bytesIn) requireJson(req);
  const input = restInput(req, route, params);
  const onRate = (rate: RateState) => setRateHeaders(res, rate);
  const gone = abandoned(res);
  const { result } = await invoke(services, op, req.credential!, 'rest', input, {
    onRate,
    body: bytesIn ? rawBody(req) : undefined,
    get signal() {
      return gone();
    },
    // The request carries the key it was authenticated with: asking again is one cached lookup.
    recheck: async () => (await credentialForKey(services, bearerToken(req.headers.authorization) ?? '')) !== undefined,
  });
  if (isRawResult(result)) return result.send(res, req);
  const etag = rest.etag?.(result);
  if (etag) {
    // A strong validator (a blob id names exactly these bytes): a client holding it gets 304, no body.
    res.setHeader('ETag', `"${etag}"`);
    if (matchesIfNoneMatch(req.headers['if-none-match'], etag)) return void res.writeHead(304).end();
  }
  sendJson(res, rest.status?.(result) ?? 200, result);
}

/** As Express's router answers OPTIONS for a path some route serves: the methods, as text. */
function sendAllow(res: ServerResponse, methods: string[]): void {
  const allow = methods.join(', ');
  res.setHeader('Allow', allow);
  res.setHeader('Content-Type', 'text/plain');
  res.setHeader('Content-Length', Buffer.byteLength(allow));
  res.end(allow);
}

/** Whether a request's URL is the API's, as Express matched the mount: `/vault` or below, in any case. */
export function isRestUrl(url: string): boolean {
  if (url.length < REST_PREFIX.length || url.slice(0, REST_PREFIX.length).toLowerCase() !== REST_PREFIX) return false;
  const next = url[REST_PREFIX.length];
  return next === undefined || next === '/' || next === '?';
}

/** The URL under the prefix, as a mounted router saw it (`/vault?x` → `/?x`). */
function underPrefix(url: string): string {
  const rest = url.slice(REST_PREFIX.length);
  return rest.startsWith('/') ? rest : `/${rest}`;
}

/**
 * `/vault/...` (see `isRestUrl`): one route per catalog operation that has a REST binding,
 * answered from node's own request and response, ahead of Express: an API request meets
 * only its own code (Express's app and router, and the prototypes it gives every request
 * and response, cost more than half of a page read beyond a bare node answer). What the
 * app does for every request is done here too: the request log, the security headers and
 * the refusal of badly encoded URLs. The key is checked first (an unknown endpoint is a
 * 401 without one), then the route is found in the `RouteTable`. Bodies are parsed only for
 * methods that carry one. Every outcome is answered here, errors as JSON.
 */
export function restHandler(services: Services, catalog: AnyOperation[]): (req: IncomingMessage, res: ServerResponse) => void {
  const table = new RouteTable(catalog);
  const pagePrefixes = pagePathPrefixes(catalog);
  // Generous enough for a maximal page JSON-escaped; the page limit itself is checked per field.
  const json = express.json({ limit: services.config.maxPageBytes * 6 + 65536 });
  const log = requestLog(services.log);
  const parseBody = (req: RestRequest, res: ServerResponse) =>
    new Promise<void>((resolve, reject) => json(req as Request, res as Response, (err?: unknown) => (err ? reject(err) : resolve())));
  const serve = async (req: RestRequest, res: ServerResponse) => {
    const refused = malformedUrl(req.url!, pagePrefixes);
    if (refused) throw refused;
    const url = underPrefix(req.url!);
    const hasBody = req.method !== 'GET' && req.method !== 'HEAD';
    // Looked up before the key is checked, but answered after: an unknown endpoint without a key is a 401.
    const found = table.find(req.method!, url);
    if (hasBody && found?.route.op.rest?.bytes !== 'in') await parseBody(req, res);
    req.credential = await authenticate(services, req);
    if (found) {
      // The request log names the pattern, as Express's route did.
      req.route = { path: found.route.pattern };
      return answer(services, req, res, found);
    }
    const methods = req.method === 'OPTIONS' ? table.methods(url) : [];
    if (methods.length) return sendAllow(res, methods);
    throw new QuireError('NOT_FOUND', `No such endpoint: ${req.method} ${req.url!.split('?')[0]}`);
  };
  return (req: RestRequest, res) => {
    req.baseUrl = REST_PREFIX;
    log(req as Request, res as Response, () => undefined);
    setSecurityHeaders(res);
    serve(req, res).catch((err: unknown) => {
      const error = toQuireError(err, services.log);
      // Too late for an error body: cut the response short so the client sees it failed.
      if (res.headersSent) return void res.destroy();
      // A body refused unread (too large, no right to write) is not read to its end to keep
      // the connection: the answer closes it.
      if (!req.complete) res.setHeader('Connection', 'close');
      sendError(res, error);
    });
  };
}
