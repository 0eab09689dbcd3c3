/** A front-matter value as the index keeps it: YAML's data as JSON holds it, object keys case-folded. */
export type FieldValue = string | number | boolean | null | FieldValue[] | { [key: string]: FieldValue };

/** One page's front-matter fields by case-folded key. */
export type PageFields = Record<string, FieldValue>;

/**
 * Names a query computes from the index (`path`, `title`, …). A front-matter key of the same
 * name is shadowed, so it is not kept: `title`, `tags` and `aliases` are read from the
 * front-matter into the computed fields already, and would otherwise be held twice.
 */
export const COMPUTED_FIELDS = [
  'path',
  'folder',
  'title',
  'tags',
  'aliases',
  'links',
  'backlinks_count',
  'words',
  'size',
  'created_at',
  'updated_at',
  'hash',
] as const;

const COMPUTED: ReadonlySet<string> = new Set(COMPUTED_FIELDS);

/** Dataview matches front-matter keys case-insensitively: keys are kept lower-cased. */
export function foldKey(key: string): string {
  return key.toLowerCase();
}

/**
 * The fields a page's front-matter gives a query, or undefined when it gives none. The first
 * key wins when two fold alike. Strings are copied flat: the yaml library's are slices of
 * the page text and would keep all of it alive for the life of the index.
 */
export function pageFields(frontmatter: Record<string, unknown>): PageFields | undefined {
  let fields: PageFields | undefined;
  for (const [key, value] of Object.entries(frontmatter)) {
    const folded = foldKey(key);
    if (COMPUTED.has(folded) || folded === '__proto__' || value === undefined) continue;
    fields ??= {};
    if (!Object.hasOwn(fields, folded)) fields[folded] = fieldValue(value);
  }
  return fields;
}

function fieldValue(value: unknown): FieldValue {
  if (typeof value === 'string') return flat(value);
  if (typeof value === 'number') return Number.isFinite(value) ? value : null;
  if (typeof value === 'boolean' || value === null) return value;
  if (Array.isArray(value)) return value.map(fieldValue);
  if (typeof value === 'object') {
    const object: Record<string, FieldValue> = {};
    for (const [key, inner] of Object.entries(value as Record<string, unknown>)) {
      const folded = foldKey(key);
      if (folded !== '__proto__' && inner !== undefined && !Object.hasOwn(object, folded)) object[folded] = fieldValue(inner);
    }
    return object;
  }
  return null;
}

function flat(s: string): string {
  return s.length < 13 ? s : (JSON.parse(JSON.stringify(s)) as string);
}
