import { inSlices } from '../slices.js';
import type { Vault } from '../vault.js';
import { FieldIndex } from './fields/field-index.js';
import { pageFields } from './fields/page-fields.js';
import type { LinkGraph } from './graph/link-graph.js';
import { pageMeta, type PageMeta } from './page-meta.js';
import { jsonArrayChunks, parseSection, SavedSection, type Sections } from './persist.js';
import { snapshotIndex, type Written } from './search/index-snapshot.js';
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
  /** The metas changed since `metas` was saved whole, as saved (see MetasBase), while the metas are unread. */
  metaChanges?: SavedSection;
  /** Once the metas are read: the section they were last saved whole in, and what changed since. */
  metasBase?: MetasBase;
  index: SearchIndex;
  graph?: LinkGraph;
  /** Front-matter fields for queries. */
  fields: FieldIndex;
  tasks: TaskIndex;
}

/**
 * The metas are saved whole now and then, and in between as the metas changed since (a
 * `meta-changes` section of `[path, meta or null]`, rewritten at each save beside the whole
 * one's file, kept as it is): at 100k pages the whole list is 52 MB of JSON, and made again at
 * every save under steady writes it cost ~0.35 s of CPU every 2 s. `saved` is the whole
 * section as the store names it (none until a whole one is written); `changed`, the paths
 * changed since it was taken.
 */
export interface MetasBase {
  saved?: SavedSection;
  changed: Set<string>;
}

/** Changes a save may carry beside the whole metas, at least; past an eighth of the pages they are saved whole again. */
const CHANGES_MIN = 256;

export function metasOf(state: State): Map<string, PageMeta> {
  if (state.metas instanceof SavedSection) {
    const whole = state.metas;
    const metas = new Map(parseSection<PageMeta[]>(whole.read()).map((m) => [m.path, m]));
    const changed = new Set<string>();
    for (const [path, meta] of state.metaChanges ? parseSection<[string, PageMeta | null][]>(state.metaChanges.read()) : []) {
      changed.add(path);
      if (meta) metas.set(path, meta);
      else metas.delete(path);
    }
    // Handles that have not read their bytes: the read ones go with the parse.
    state.metasBase = { saved: whole.unread(), changed };
    state.metaChanges = undefined;
    state.metas = metas;
  }
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
    state.metasBase?.changed.add(path);
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
  state.metasBase?.changed.add(meta.path);
  state.index.upsert({ path: meta.path, title: meta.title, hash: meta.hash, tags: meta.tags, body });
  state.fields.set(meta.path, meta.frontmatterError ? undefined : pageFields(frontmatter));
  state.tasks.set(meta.path, tasks);
  return meta;
}

/**
 * What a save of the state writes, bodies aside: the index's sections, the page metas
 * (serialised later: a meta is replaced on change, never edited) whole or as the changes
 * since their whole section (see MetasBase), fields and tasks; and what to run once they are
 * written, which gives the sections that went whole to the bases of later saves. Taken inside
 * the write queue, or in the builder, which owns its state alone.
 */
export function stateSections(state: State): { sections: Sections; written: Written[] } {
  const { sections, written: index } = snapshotIndex(state.index);
  const written = index ? [index] : [];
  sections.fields = state.fields.section();
  sections.tasks = state.tasks.section();
  const { metas, metasBase: base } = state;
  if (metas instanceof SavedSection) {
    sections.metas = metas;
    if (state.metaChanges) sections['meta-changes'] = state.metaChanges;
    return { sections, written };
  }
  if (base?.saved && base.changed.size <= Math.max(CHANGES_MIN, metas.size / 8)) {
    sections.metas = base.saved;
    const rows = [...base.changed].map((path) => [path, metas.get(path) ?? null]);
    sections['meta-changes'] = () => jsonArrayChunks(rows);
    return { sections, written };
  }
  const list = [...metas.values()];
  sections.metas = () => jsonArrayChunks(list);
  // Changes from now on are against this list; its section once written is the base.
  const whole: MetasBase = (state.metasBase = { changed: new Set() });
  written.push((saved) => (whole.saved = saved('metas')));
  return { sections, written };
}
