import type { FieldValue } from '../fields/page-fields.js';

/** A value as a query compares it: dates in one form, wiki links as the paths they reach. */
export type Comparable = FieldValue | undefined;

/** Resolves a wiki link's target, written in page `from`, to a page path (null: no such page). */
export type LinkResolver = (target: string, from: string) => string | null;

const ISO_DATE = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})?)?$/;
const WIKI_LINK = /^\[\[([^\][|#]+)(?:#[^\][|]*)?(?:\|[^\][]*)?\]\]$/;

/**
 * An ISO date or date-time as `YYYY-MM-DDTHH:mm:ss.sssZ`, or undefined when `s` is not one.
 * One form for every spelling, so that dates compare as dates with JsonLogic's string
 * comparisons (`<`, `==`, …) and sort in time order: a date alone is its midnight, and a
 * time without a zone is taken as UTC (a server has no user's time zone).
 */
export function canonicalDate(s: string): string | undefined {
  const m = ISO_DATE.exec(s);
  if (!m) return undefined;
  const [, y, mo, d, h = '00', mi = '00', sec = '00', frac = '', zone = 'Z'] = m;
  // Date.UTC rolls 2026-02-30 over to March: such a string is no date.
  const day = new Date(Date.UTC(Number(y), Number(mo) - 1, Number(d)));
  if (day.getUTCMonth() !== Number(mo) - 1 || day.getUTCDate() !== Number(d)) return undefined;
  const offset = zone.length === 5 ? `${zone.slice(0, 3)}:${zone.slice(3)}` : zone;
  const time = Date.parse(`${y}-${mo}-${d}T${h}:${mi}:${sec}${frac.slice(0, 4)}${offset}`);
  return Number.isNaN(time) ? undefined : new Date(time).toISOString();
}

/** The page a `[[link]]` string names, as written (without heading or display text), or undefined. */
export function wikiTarget(s: string): string | undefined {
  return WIKI_LINK.exec(s)?.[1].trim();
}

/**
 * Canonical dates by spelling: a vault's dates repeat (a few thousand days), and a whole-vault
 * query otherwise parses each one per row. Emptied when full, never holding more than this.
 */
const dates = new Map<string, string | undefined>();
const MAX_DATES = 65_536;

function cachedDate(s: string): string | undefined {
  let date = dates.get(s);
  if (date === undefined && !dates.has(s)) {
    if (dates.size >= MAX_DATES) dates.clear();
    date = canonicalDate(s);
    dates.set(s, date);
  }
  return date;
}

/** A string as compared: a date canonical, a wiki link its resolved path (as written when unresolved). */
export function comparableString(s: string, from: string, resolve: LinkResolver): string {
  if (s.length >= 10 && s.length <= 40 && s.charCodeAt(4) === 45) {
    const date = cachedDate(s);
    if (date) return date;
  }
  if (s.startsWith('[[')) {
    const target = wikiTarget(s);
    if (target !== undefined) return resolve(target, from) ?? target;
  }
  return s;
}

/** A front-matter value as compared, lists and objects element by element. */
export function comparable(value: Comparable, from: string, resolve: LinkResolver): Comparable {
  if (typeof value === 'string') return comparableString(value, from, resolve);
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map((v) => comparable(v, from, resolve) as FieldValue);
  const out: Record<string, FieldValue> = {};
  for (const key of Object.keys(value)) out[key] = comparable(value[key], from, resolve) as FieldValue;
  return out;
}

// Order across types: numbers, strings, booleans, lists and objects (by their JSON); missing last.
function rank(v: Comparable): number {
  if (v === undefined || v === null) return 4;
  if (typeof v === 'number') return 0;
  if (typeof v === 'string') return 1;
  if (typeof v === 'boolean') return 2;
  return 3;
}

/** Ascending order of two compared values; missing values (undefined, null) are equal to each other. */
export function compareValues(a: Comparable, b: Comparable): number {
  const ra = rank(a);
  const rb = rank(b);
  if (ra !== rb || ra === 4) return ra - rb;
  if (ra === 3) [a, b] = [JSON.stringify(a), JSON.stringify(b)];
  return a! < b! ? -1 : a! > b! ? 1 : 0;
}
