import { inSlices } from '../slices.js';
import type { Vault } from '../vault.js';
import { FieldIndex } from './fields/field-index.js';
import { pageFields } from './fields/page-fields.js';
import type { LinkGraph } from './graph/link-graph.js';
import { KeyedSection, type KeyedFormat } from './keyed-section.js';
import { pageMeta, type PageMeta } from './page-meta.js';
import { jsonArrayChunks, parseSection, type SavedSection, type Sections, type Written } from './persist.js';
import { snapshotIndex } from './search/index-snapshot.js';
import type { SearchIndex } from './search/search-index.js';
import { TaskIndex } from './tasks/task-index.js';

/**
 * Derived state that is swapped as one piece on rebuild. What search does not need is made
 * when first asked for, not at open, so a restarted server answers its first search sooner:
 * the link graph, built from the metas (2 of 2.6 s of a warm start at 10k pages), and the
 * metas themselves, left on disk as their saved sections until read and parsed (0.9 s at
 * 100k). Until the graph exists changes go to the metas only; a graph built later from them
 * equals one kept current.
 */
export interface State {
  metas: KeyedSection<PageMeta>;
  index: SearchIndex;
  graph?: LinkGraph;
  /** Front-matter fields for queries. */
  fields: FieldIndex;
  tasks: TaskIndex;
}

/** The whole `metas` section is a plain array of metas (each names its path). */
const META_FORMAT: KeyedFormat<PageMeta> = {
  read: (bytes) => new Map(parseSection<PageMeta[]>(bytes).map((meta) => [meta.path, meta])),
  write: (rows) => {
    const list = [...rows.values()];
    return () => jsonArrayChunks(list);
  },
};

/** The page metas: `metas` saved whole now and then, `meta-changes` in between (see KeyedSection). */
export function metaSection(saved?: { whole: SavedSection; changes?: SavedSection }): KeyedSection<PageMeta> {
  return new KeyedSection({ whole: 'metas', changes: 'meta-changes' }, META_FORMAT, saved);
}

export function metasOf(state: State): Map<string, PageMeta> {
  return state.metas.map();
}

/** A state holding no page yet, its search index over `index` (whose bodies go where that store goes). */
export function emptyState(index: SearchIndex): State {
  return { metas: metaSection(), index, fields: new FieldIndex(), tasks: new TaskIndex() };
}

export async function applyChange(vault: Vault, state: State, path: string, oid: string | null): Promise<void> {
  if (oid === null) {
    // The graph first: while it gives turns the page is still listed, so nothing meanwhile meets an edge to a page gone.
    if (state.graph) await inSlices(state.graph.removing(path));
    state.metas.set(path, undefined);
    state.index.remove(path);
    state.fields.delete(path);
    state.tasks.delete(path);
    return;
  }
  // The index's hash, not the metas': a warm open leaves the metas unread (0.9 s at 100k pages) and a write need not read them.
  if (state.index.get(path)?.hash === oid) return;
  const meta = addParsed(state, pageMeta(path, oid, await vault.repo.objects.blob(oid)));
  if (state.graph) await inSlices(state.graph.upserting(meta));
}

/** Files a page read and parsed (see `pageMeta`) in every part of the state. */
export function addParsed(state: State, page: ReturnType<typeof pageMeta>): PageMeta {
  const { body, frontmatter, tasks, ...meta } = page;
  state.metas.set(meta.path, meta);
  state.index.upsert({ path: meta.path, title: meta.title, hash: meta.hash, tags: meta.tags, body });
  state.fields.set(meta.path, meta.frontmatterError ? undefined : pageFields(frontmatter));
  state.tasks.set(meta.path, tasks);
  return meta;
}

/**
 * What a save of the state writes, bodies aside: the index's sections, and the page metas,
 * fields and tasks whole or as the changes since their whole sections (see KeyedSection);
 * and what to run once they are written, which gives the sections that went whole to the
 * bases of later saves. Taken inside the write queue, or in the builder, which owns its state
 * alone.
 */
export function stateSections(state: State): { sections: Sections; written: Written[] } {
  const pages = state.index.size;
  const parts = [snapshotIndex(state.index), state.metas.sections(pages), state.fields.sections(pages), state.tasks.sections(pages)];
  return {
    sections: Object.assign({}, ...parts.map((part) => part.sections)) as Sections,
    written: parts.flatMap((part) => (part.written ? [part.written] : [])),
  };
}
