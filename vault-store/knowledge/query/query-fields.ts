import type { FieldIndex } from '../fields/field-index.js';
import { COMPUTED_FIELDS, foldKey, type FieldValue } from '../fields/page-fields.js';
import type { LinkGraph } from '../graph/link-graph.js';
import type { PageMeta } from '../page-meta.js';
import { comparable, type Comparable, type LinkResolver } from './comparable.js';

/** What rows are read from: the index's parts, the caller's view, and page dates when asked for. */
export interface RowSource {
  metas: ReadonlyMap<string, PageMeta>;
  fields: FieldIndex;
  graph: () => LinkGraph;
  visible: (path: string) => boolean;
  /** ISO times by path, filled before rows are read when a query names `created_at` / `updated_at`. */
  dates: { created_at?: ReadonlyMap<string, string>; updated_at?: ReadonlyMap<string, string> };
}

/** A field's value for one page: `compared` as `where` and `sort` see it, else as written. */
export type Getter = (meta: PageMeta, compared: boolean) => Comparable;

const COMPUTED: ReadonlySet<string> = new Set(COMPUTED_FIELDS);
export const DATE_FIELDS = ['created_at', 'updated_at'] as const;

export function isComputed(name: string): boolean {
  return COMPUTED.has(name);
}

function computed(name: string, source: RowSource): (meta: PageMeta) => Comparable {
  switch (name) {
    case 'path':
      return (m) => m.path;
    case 'folder':
      return (m) => m.path.slice(0, Math.max(0, m.path.lastIndexOf('/')));
    case 'title':
      return (m) => m.title;
    case 'tags':
      return (m) => m.tags;
    case 'aliases':
      return (m) => m.aliases;
    case 'links':
      // A link to a page the caller cannot see reads as a link to no page: its target as written.
      return (m) => [
        ...new Set(
          source
            .graph()
            .links(m.path)
            .map((l) => (l.resolved && source.visible(l.resolved) ? l.resolved : l.target)),
        ),
      ];
    case 'backlinks_count':
      return (m) => source.graph().inDegree(m.path, source.visible);
    case 'words':
      return (m) => m.words;
    case 'size':
      return (m) => m.size;
    case 'hash':
      return (m) => m.hash;
    default: {
      const dates = source.dates[name as (typeof DATE_FIELDS)[number]];
      return (m) => dates?.get(m.path);
    }
  }
}

function within(value: Comparable, segments: string[]): Comparable {
  for (const segment of segments) {
    if (value === null || typeof value !== 'object') return undefined;
    value = Array.isArray(value) ? value[Number(segment)] : Object.hasOwn(value, segment) ? value[segment] : undefined;
  }
  return value;
}

/** The getter of a field name: computed, else front-matter (case-folded; dots reach into objects and lists). */
export function fieldGetter(name: string, source: RowSource, resolve: LinkResolver): Getter {
  const [first, ...rest] = foldKey(name).split('.');
  if (isComputed(first)) {
    const get = computed(first, source);
    return rest.length ? (meta) => within(get(meta), rest) : get;
  }
  return (meta, compared) => {
    const raw = within(source.fields.get(meta.path)?.[first], rest);
    return compared ? comparable(raw, meta.path, resolve) : raw;
  };
}

/**
 * The row a `where` reads: only the fields it names (or all of them), as compared. A
 * null-prototype object, so a name JsonLogic looks up finds data or nothing.
 */
export function rowMaker(
  reads: Set<string> | 'all',
  source: RowSource,
  resolve: LinkResolver,
): (meta: PageMeta) => Record<string, unknown> {
  const names = reads === 'all' ? undefined : [...reads];
  const getters = (names ?? COMPUTED_FIELDS).map((name) => [name, fieldGetter(name, source, resolve)] as const);
  return (meta) => {
    const row = Object.create(null) as Record<string, unknown>;
    if (!names) {
      const fields = source.fields.get(meta.path);
      for (const key in fields) row[key] = comparable(fields[key], meta.path, resolve);
    }
    for (const [name, get] of getters) row[name] = get(meta, true);
    return row;
  };
}

/** The row as answered: path and title, then the fields asked for, or every front-matter field. */
export function rowProjector(
  fields: string[] | undefined,
  source: RowSource,
  resolve: LinkResolver,
): (meta: PageMeta) => { path: string; title: string } & Record<string, unknown> {
  const getters = (fields ?? []).map((name) => [foldKey(name), fieldGetter(name, source, resolve)] as const);
  return (meta) => {
    const row: { path: string; title: string } & Record<string, unknown> = { path: meta.path, title: meta.title };
    if (!fields) Object.assign(row, source.fields.get(meta.path));
    for (const [name, get] of getters) {
      const value = get(meta, false);
      if (value !== undefined) row[name] = value as FieldValue;
    }
    return row;
  };
}
