import { inSlices } from '../slices.js';
import type { Vault } from '../vault.js';
import { FieldIndex } from './fields/field-index.js';
import { pageFields } from './fields/page-fields.js';
import type { LinkGraph } from './graph/link-graph.js';
import { pageMeta, type PageMeta } from './page-meta.js';
import { jsonArrayChunks, parseSection, SavedSection, type Sections } from './persist.js';
import { snapshotIndex } from './search/index-snapshot.js';
import type { SearchIndex } from './search/search-index.js';
import { TaskIndex } from './tasks/task-index.js';

/**
 * Derived state that is swapped as one piece on rebuild. What search does not need is made
 * when first asked for, not at open, so a restarted server answers its first search sooner:
 * the link graph, built from the metas (2 of 2.6 s of a warm start at 10k pages), and the
 * metas themselves, left on disk as their saved section until read and parsed (0.9 s at
 * 100k). Until the graph exists changes go to the metas only; a graph built later from them
 * equals one kept current.
 */
export interface State {
  metas: Map<string, PageMeta> | SavedSection;
  index: SearchIndex;
  graph?: LinkGraph;
  /** Front-matter fields for queries. */
  fields: FieldIndex;
  tasks: TaskIndex;
}

export function metasOf(state: State): Map<string, PageMeta> {
  if (state.metas instanceof SavedSection) state.metas = new Map(parseSection<PageMeta[]>(state.metas.read()).map((m) => [m.path, m]));
  return state.metas;
}

/** A state holding no page yet, its search index over `index` (whose bodies go where that store goes). */
export function emptyState(index: SearchIndex): State & { metas: Map<string, PageMeta> } {
  return { metas: new Map(), index, fields: new FieldIndex(), tasks: new TaskIndex() };
}

export async function applyChange(vault: Vault, state: State, path: string, oid: string | null): Promise<void> {
  if (oid === null) {
    // The graph first: while it gives turns the page is still listed, so nothing meanwhile meets an edge to a page gone.
    if (state.graph) await inSlices(state.graph.removing(path));
    metasOf(state).delete(path);
    state.index.remove(path);
    state.fields.delete(path);
    state.tasks.delete(path);
    return;
  }
  if (metasOf(state).get(path)?.hash === oid) return;
  const meta = addParsed({ ...state, metas: metasOf(state) }, pageMeta(path, oid, await vault.repo.objects.blob(oid)));
  if (state.graph) await inSlices(state.graph.upserting(meta));
}

/** Files a page read and parsed (see `pageMeta`) in every part of a state whose metas are in memory. */
export function addParsed(state: State & { metas: Map<string, PageMeta> }, page: ReturnType<typeof pageMeta>): PageMeta {
  const { body, frontmatter, tasks, ...meta } = page;
  state.metas.set(meta.path, meta);
  state.index.upsert({ path: meta.path, title: meta.title, hash: meta.hash, tags: meta.tags, body });
  state.fields.set(meta.path, meta.frontmatterError ? undefined : pageFields(frontmatter));
  state.tasks.set(meta.path, tasks);
  return meta;
}

/**
 * What a save of the state writes, bodies aside: the index's sections, the list of page
 * metas (serialised later: a meta is replaced on change, never edited), fields and tasks.
 * Taken inside the write queue, or in the builder, which owns its state alone.
 */
export function stateSections(state: State): Sections {
  const sections = snapshotIndex(state.index);
  if (state.metas instanceof SavedSection) sections.metas = state.metas;
  else {
    const metas = [...state.metas.values()];
    sections.metas = () => jsonArrayChunks(metas);
  }
  sections.fields = state.fields.section();
  sections.tasks = state.tasks.section();
  return sections;
}
