import { z } from 'zod';
import { parseTrustProxy } from '../http/trust-proxy.js';

/**
 * Parsers for environment strings. Each message follows the variable's name and quotes the
 * value, so "PORT must be an integer from 0 to 65535: abc" tells the operator what to fix.
 */

export function integer(min: number, max: number) {
  return z.string().transform((raw, ctx) => {
    const n = Number(raw);
    if (!Number.isInteger(n) || n < min || n > max)
      ctx.addIssue({ code: 'custom', message: `must be an integer from ${min} to ${max}: ${raw}` });
    return n;
  });
}

/** An http(s) URL without query or fragment, returned without a trailing slash. */
export function httpUrl() {
  return z.string().transform((raw, ctx) => {
    let url: URL;
    try {
      url = new URL(raw);
    } catch {
      ctx.addIssue({ code: 'custom', message: `is not a URL: ${raw}` });
      return raw;
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') ctx.addIssue({ code: 'custom', message: `must be http or https: ${raw}` });
    if (url.search || url.hash) ctx.addIssue({ code: 'custom', message: `must not have a query or fragment: ${raw}` });
    return url.href.replace(/\/+$/, '');
  });
}

export function boolean() {
  return z.string().transform((raw, ctx) => {
    const value = raw.toLowerCase();
    if (!['true', 'false', '1', '0'].includes(value)) ctx.addIssue({ code: 'custom', message: `must be true or false: ${raw}` });
    return value === 'true' || value === '1';
  });
}

export function oneOf<const T extends readonly [string, ...string[]]>(values: T) {
  return z.enum(values, { error: (issue) => `must be one of ${values.join(', ')}: ${String(issue.input)}` });
}

export function trustProxy() {
  return z.string().transform((raw, ctx) => {
    const problems: string[] = [];
    const value = parseTrustProxy(raw, problems);
    for (const message of problems) ctx.addIssue({ code: 'custom', message });
    return value;
  });
}

/** An origin exactly as a browser sends it in `Origin`: http(s), host, port if not the default. */
function isOrigin(entry: string): boolean {
  if (!URL.canParse(entry)) return false;
  const url = new URL(entry);
  return (url.protocol === 'http:' || url.protocol === 'https:') && url.origin === entry;
}

/** Comma-separated web origins (`http://localhost:6274`), compared with `Origin` as written. */
export function origins() {
  return z.string().transform((raw, ctx) => {
    const entries = raw
      .split(',')
      .map((entry) => entry.trim())
      .filter((entry) => entry !== '');
    if (entries.includes('*')) ctx.addIssue({ code: 'custom', message: 'must list origins; * would let any web page call the server' });
    const bad = entries.filter((entry) => entry !== '*' && !isOrigin(entry));
    if (bad.length) {
      const message = `must be origins like http://localhost:6274 (scheme://host[:port], no path or trailing slash): ${bad.join(', ')}`;
      ctx.addIssue({ code: 'custom', message });
    }
    return entries;
  });
}
