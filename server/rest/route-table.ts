import type { AnyOperation } from '../ops/operation.js';

/** Where the REST API lives (`isRestUrl`); operations' REST paths start with it. */
export const REST_PREFIX = '/vault';

/** A route's trailing `/*name` wildcard: the page path of the operation. */
const PAGE_WILDCARD = /\/\*(\w+)$/;

/** Where page paths begin in REST URLs (`/vault/page/`, …). */
export function pagePathPrefixes(catalog: readonly AnyOperation[]): string[] {
  return catalog.flatMap((op) => (op.rest && PAGE_WILDCARD.test(op.rest.path) ? [op.rest.path.replace(PAGE_WILDCARD, '/')] : []));
}

export interface RestRoute {
  op: AnyOperation;
  /** Upper case; a GET route also answers HEAD. */
  method: string;
  /** The pattern as Express 5 spells it (`/page{/*path}`), which the request log names. */
  pattern: string;
  /** Literal segments (lower case) and `:name` parameters, after the first segment. */
  segments: string[];
  /** The trailing wildcard's name: it takes the rest of the path, possibly nothing. */
  wildcard?: string;
}

export interface RouteMatch {
  route: RestRoute;
  params: Record<string, string>;
}

function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    // As Express answers a parameter that does not decode (refuseMalformedUrl sees these first).
    throw Object.assign(new URIError(`Failed to decode param '${segment}'`), { status: 400 });
  }
}

/**
 * The parameters of `parts` (a path's segments after the first) under `route`, or undefined.
 * Matches as Express's router does with its defaults: literals case-insensitively, a
 * trailing slash allowed, each segment %-decoded, the wildcard greedy (a trailing slash is
 * part of it) and its segments joined with `/`.
 */
function matchRoute(route: RestRoute, parts: string[]): Record<string, string> | undefined {
  const fixed = route.segments.length;
  const exact = parts.length === fixed || (parts.length === fixed + 1 && parts[fixed] === '');
  if (route.wildcard === undefined ? !exact : parts.length < fixed) return undefined;
  const params: Record<string, string> = {};
  for (let i = 0; i < fixed; i++) {
    const want = route.segments[i];
    if (want.startsWith(':')) {
      if (parts[i] === '') return undefined;
      params[want.slice(1)] = decodeSegment(parts[i]);
    } else if (parts[i] !== want && parts[i].toLowerCase() !== want) return undefined;
  }
  if (route.wildcard !== undefined) params[route.wildcard] = exact ? '' : parts.slice(fixed).map(decodeSegment).join('/');
  return params;
}

/**
 * The REST routes of the catalog, grouped by their first segment (`page`, `search`, …): a
 * request tries only its group's few routes, matched here rather than by Express's router,
 * whose layers, regexps and parameter handling were a fifth of a page read.
 */
export class RouteTable {
  private readonly groups = new Map<string, RestRoute[]>();

  constructor(catalog: readonly AnyOperation[]) {
    for (const op of catalog) {
      if (!op.rest) continue;
      if (!op.rest.path.startsWith(`${REST_PREFIX}/`)) throw new Error(`${op.name}: REST paths start with ${REST_PREFIX}/`);
      const path = op.rest.path.slice(REST_PREFIX.length);
      const wildcard = PAGE_WILDCARD.exec(path)?.[1];
      const [first, ...segments] = path.replace(PAGE_WILDCARD, '').slice(1).split('/');
      if (!/^[a-z]+$/.test(first)) throw new Error(`${op.name}: a REST path's first segment is a plain word`);
      const route: RestRoute = {
        op,
        method: op.rest.method.toUpperCase(),
        pattern: path.replace(PAGE_WILDCARD, '{/*$1}'),
        segments: segments.map((s) => (s.startsWith(':') ? s : s.toLowerCase())),
        wildcard,
      };
      if (!this.groups.has(first)) this.groups.set(first, []);
      this.groups.get(first)!.push(route);
    }
  }

  /** The route for a request's method and its URL under the prefix (`/page/a.md?x`, query included). */
  find(method: string, url: string): RouteMatch | undefined {
    const parts = this.parts(url);
    for (const route of this.groups.get(parts[0]) ?? []) {
      if (route.method !== method && !(method === 'HEAD' && route.method === 'GET')) continue;
      const params = matchRoute(route, parts.slice(1));
      if (params) return { route, params };
    }
    return undefined;
  }

  /** The methods some route answers at this path, as Express lists them for OPTIONS (GET brings HEAD). */
  methods(url: string): string[] {
    const parts = this.parts(url);
    const methods = (this.groups.get(parts[0]) ?? [])
      .filter((route) => matchRoute(route, parts.slice(1)))
      .flatMap((route) => (route.method === 'GET' ? ['GET', 'HEAD'] : [route.method]));
    return [...new Set(methods)].sort();
  }

  private parts(url: string): string[] {
    const mark = url.indexOf('?');
    return (mark === -1 ? url : url.slice(0, mark)).slice(1).split('/');
  }
}
