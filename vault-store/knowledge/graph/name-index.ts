import { nameKey, pageKey, type LinkQuery } from './link-query.js';

/** Shortest path first (Obsidian's last tie-break); code-point order keeps it deterministic. */
function byPreference(a: string, b: string): number {
  return a.length - b.length || (a < b ? -1 : a > b ? 1 : 0);
}

/**
 * Most names belong to one page: that page's path is held alone, and an array only for two
 * or more: one-element arrays were 40% of the index.
 */
type Paths = string | string[];

function listOf(paths: Paths | undefined): readonly string[] {
  return paths === undefined ? [] : typeof paths === 'string' ? [paths] : paths;
}

function insert(map: Map<string, Paths>, key: string, path: string): void {
  const paths = map.get(key);
  if (paths === undefined || paths === path) {
    map.set(key, path);
    return;
  }
  const list = typeof paths === 'string' ? [paths] : paths;
  map.set(key, list);
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (byPreference(list[mid], path) < 0) lo = mid + 1;
    else hi = mid;
  }
  if (list[lo] !== path) list.splice(lo, 0, path);
}

function remove(map: Map<string, Paths>, key: string, path: string): void {
  const paths = map.get(key);
  if (paths === path) {
    map.delete(key);
    return;
  }
  const at = typeof paths === 'string' || paths === undefined ? -1 : paths.indexOf(path);
  if (at < 0) return;
  const list = paths as string[];
  list.splice(at, 1);
  if (list.length === 1) map.set(key, list[0]);
}

function pathWithoutExtension(path: string): string {
  return nameKey(path.slice(0, -'.md'.length));
}

/** Pages by lower-cased file name and by alias, each list in resolution order. */
export class NameIndex {
  private readonly byName = new Map<string, Paths>();
  private readonly byAlias = new Map<string, Paths>();

  addPage(path: string): void {
    insert(this.byName, pageKey(path), path);
  }

  removePage(path: string): void {
    remove(this.byName, pageKey(path), path);
  }

  addAlias(key: string, path: string): void {
    insert(this.byAlias, key, path);
  }

  removeAlias(key: string, path: string): void {
    remove(this.byAlias, key, path);
  }

  /**
   * The page a link in `source` points at, or null when none matches. Among pages of the
   * link's name, Obsidian takes an exact vault path, else one in the source's own folder,
   * else the shortest path (observed on Obsidian 1.13 via getFirstLinkpathDest).
   */
  resolve(query: LinkQuery, source: string): string | null {
    const named = listOf(this.byName.get(query.key));
    if (query.by === 'path') {
      if (named.includes(query.path)) return query.path;
      const lower = nameKey(query.path);
      return named.find((p) => nameKey(p) === lower) ?? null;
    }
    const wanted = query.suffix ?? query.key;
    const matches =
      query.suffix === undefined
        ? named
        : named.filter((p) => {
            const bare = pathWithoutExtension(p);
            return bare === wanted || bare.endsWith(`/${wanted}`);
          });
    if (matches.length === 0) return query.suffix === undefined ? (listOf(this.byAlias.get(query.key))[0] ?? null) : null;
    // An exact path is the shortest match, so it is first when present.
    if (matches.length === 1 || pathWithoutExtension(matches[0]) === wanted) return matches[0];
    const folder = source.slice(0, source.lastIndexOf('/') + 1);
    return matches.find((p) => p.lastIndexOf('/') + 1 === folder.length && p.startsWith(folder)) ?? matches[0];
  }
}
