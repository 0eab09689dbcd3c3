import { QuireError } from '../../errors.js';
import { normalizePrefix } from '../../paths.js';
import type { LinkGraph } from '../graph/link-graph.js';
import type { PageMeta } from '../page-meta.js';
import { wikiTarget } from './comparable.js';

/** The pages a query starts from, when its `from` narrows them; undefined: the whole vault. */
export interface From {
  metas: ReadonlyMap<string, PageMeta>;
  graph: () => LinkGraph;
  visible: (path: string) => boolean;
}

const OUTGOING = /^outgoing\((.*)\)$/s;

/**
 * `from`, spelled as Dataview spells its sources: `"folder"` (and its subfolders), `"#tag"`
 * (nested tags included, case-insensitive), `"[[Page]]"` (pages linking to Page) or
 * `"outgoing([[Page]])"` (pages Page links to). A page that is not there, or not visible to
 * the caller, is NOT_FOUND, as if absent.
 */
export function fromPages(from: string, { metas, graph, visible }: From): Iterable<PageMeta> {
  const spec = from.trim();
  if (spec.startsWith('#')) {
    const tag = spec.slice(1).toLowerCase();
    if (!tag) throw new QuireError('INVALID_REQUEST', 'from: a tag needs a name after "#"', { field: 'from' });
    return pagesWithTag(metas, tag);
  }
  const outgoing = OUTGOING.exec(spec);
  if (outgoing || spec.startsWith('[[')) {
    const page = linkedPage(outgoing ? outgoing[1].trim() : spec, graph(), visible);
    const linked = new Set(outgoing ? graph().outgoing(page) : graph().backlinks(page));
    return [...linked].map((path) => metas.get(path)!);
  }
  return pagesUnder(metas, normalizePrefix(spec));
}

function linkedPage(written: string, graph: LinkGraph, visible: (path: string) => boolean): string {
  const target = wikiTarget(written);
  if (target === undefined) throw new QuireError('INVALID_REQUEST', `from: "${written}" is not a [[wiki link]]`, { field: 'from' });
  const page = graph.resolveLink(target, '');
  if (page === null || !visible(page)) throw new QuireError('NOT_FOUND', `No page ${written}`, { field: 'from' });
  return page;
}

function* pagesWithTag(metas: ReadonlyMap<string, PageMeta>, tag: string): Iterable<PageMeta> {
  for (const meta of metas.values()) {
    if (meta.tags.some((t) => hasTag(t, tag))) yield meta;
  }
}

/** `written` is `tag` or nested under it, in any case; lower-cases only tags of a length that can be. */
function hasTag(written: string, tag: string): boolean {
  if (written.length !== tag.length && written[tag.length] !== '/') return false;
  return written.slice(0, tag.length).toLowerCase() === tag;
}

function* pagesUnder(metas: ReadonlyMap<string, PageMeta>, prefix: string): Iterable<PageMeta> {
  for (const meta of metas.values()) if (meta.path.startsWith(prefix)) yield meta;
}
