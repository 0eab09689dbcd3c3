import { QuireError } from '../../errors.js';
import type { FieldIndex } from '../fields/field-index.js';
import { foldKey } from '../fields/page-fields.js';
import type { LinkGraph } from '../graph/link-graph.js';
import type { PageMeta } from '../page-meta.js';
import { comparableString, compareValues, type Comparable, type LinkResolver } from './comparable.js';
import { decodeCursor, encodeCursor, queryStamp, type CursorKey } from './query-cursor.js';
import { DATE_FIELDS, fieldGetter, isComputed, rowMaker, rowProjector, type RowSource } from './query-fields.js';
import { FirstInOrder } from './first-in-order.js';
import type { PageDates } from './page-dates.js';
import { fromPages } from './query-from.js';
import { prepareWhere, rowTest } from './where.js';

export interface QuerySort {
  field: string;
  dir?: 'asc' | 'desc';
}

export interface QueryInput {
  from?: string;
  where?: unknown;
  sort?: QuerySort[];
  fields?: string[];
  limit: number;
  cursor?: string;
}

/** A row: path and title, then the fields picked. */
export type QueryRow = { path: string; title: string } & Record<string, unknown>;

export interface QueryPage {
  rows: QueryRow[];
  total: number;
  next_cursor: string | null;
}

/** The index's parts a query reads, and whose pages the caller may see. */
export interface QueryParts {
  metas: ReadonlyMap<string, PageMeta>;
  fields: FieldIndex;
  graph: () => LinkGraph;
  dates: PageDates;
  visible: (path: string) => boolean;
}

interface Match {
  meta: PageMeta;
  key: Comparable[];
}

const CHECK_EVERY = 256;

/**
 * One page of a query: the pages of `from` (else every page) the caller may see, those
 * passing `where`, ordered by `sort` then path (missing values last either way), `fields`
 * picked. `total` counts every visible match; the cursor is the last row's sort key.
 */
export async function runQuery(input: QueryInput, parts: QueryParts, budgetMs: number): Promise<QueryPage> {
  const { visible, graph } = parts;
  const source: RowSource = { ...parts, dates: {} };
  // A link to a page the caller cannot see resolves to no page.
  const resolve: LinkResolver = (target, from) => {
    const page = graph().resolveLink(target, from);
    return page !== null && visible(page) ? page : null;
  };
  const literal = (s: string) => comparableString(s, '', resolve);
  const where = input.where === undefined ? undefined : prepareWhere(input.where, literal);
  const sort = (input.sort ?? []).map((s, i) => {
    const name = foldKey(s.field);
    const first = name.split('.')[0];
    if (!isComputed(first) && !source.fields.hasKey(first)) {
      throw new QuireError('INVALID_REQUEST', `sort[${i}].field: no page has a field "${s.field}"`, { field: `sort[${i}].field` });
    }
    return { name, desc: s.dir === 'desc' };
  });
  const stamp = queryStamp([input.from ?? null, input.where ?? null, sort]);
  const after = input.cursor === undefined ? undefined : decodeCursor(input.cursor, stamp, sort.length);

  const candidates = input.from === undefined ? source.metas.values() : fromPages(input.from, source);
  const pages: PageMeta[] = [];
  for (const meta of candidates) if (source.visible(meta.path)) pages.push(meta);

  const named = new Set<string>([...sort.map((s) => s.name.split('.')[0]), ...(input.fields ?? []).map((f) => foldKey(f).split('.')[0])]);
  if (where?.reads === 'all') DATE_FIELDS.forEach((d) => named.add(d));
  else where?.reads.forEach((r) => named.add(r));
  if (named.has('updated_at')) source.dates.updated_at = await parts.dates.updatedAt(pages.map((m) => m.path));
  if (named.has('created_at')) source.dates.created_at = await parts.dates.createdAt();

  const makeRow = where && rowMaker(where.reads, source, resolve);
  const test = where && rowTest(where);
  const sortGetters = sort.map((s) => fieldGetter(s.name, source, resolve));
  // A sort field the row already holds is not looked up twice.
  const inRow = sort.map((s) => !s.name.includes('.') && (where?.reads === 'all' || where?.reads.has(s.name) === true));
  const order = (a: Match, b: Match): number => {
    for (let i = 0; i < sort.length; i++) {
      const x = a.key[i];
      const y = b.key[i];
      const c = compareValues(x, y);
      if (c !== 0) return sort[i].desc && x !== null && x !== undefined && y !== null && y !== undefined ? -c : c;
    }
    return a.meta.path < b.meta.path ? -1 : a.meta.path > b.meta.path ? 1 : 0;
  };
  const cursorMatch = after && { meta: { path: after.path } as PageMeta, key: after.values };

  const started = performance.now();
  const first = new FirstInOrder(input.limit, order);
  const scratch: Match = { meta: undefined as unknown as PageMeta, key: new Array<Comparable>(sort.length) };
  let total = 0;
  let left = 0;
  for (let i = 0; i < pages.length; i++) {
    if (i % CHECK_EVERY === CHECK_EVERY - 1 && performance.now() - started > budgetMs) overBudget(budgetMs);
    const meta = pages[i];
    const row = makeRow?.(meta);
    if (row && !test!(row)) continue;
    total++;
    // Most matches are not kept: their key is made in a scratch match, copied only when kept.
    scratch.meta = meta;
    for (let j = 0; j < sort.length; j++) scratch.key[j] = row && inRow[j] ? (row[sort[j].name] as Comparable) : sortGetters[j](meta, true);
    if (cursorMatch && order(scratch, cursorMatch) <= 0) continue;
    left++;
    if (first.takes(scratch)) first.offer({ meta, key: [...scratch.key] });
  }
  const page = first.items;
  const last = page.at(-1);
  const project = rowProjector(input.fields, source, resolve);
  const key: CursorKey | undefined = last && { values: last.key, path: last.meta.path };
  return {
    rows: page.map((m) => project(m.meta)),
    total,
    next_cursor: left > input.limit && key ? encodeCursor(stamp, key) : null,
  };
}

function overBudget(budgetMs: number): never {
  throw new QuireError('INVALID_REQUEST', `the query needed more than ${budgetMs} ms: narrow it with from or a simpler where`, {
    budget_ms: budgetMs,
  });
}
