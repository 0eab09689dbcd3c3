import { diffPages } from '../history/tree-diff.js';
import type { Vault } from '../vault.js';
import { FieldIndex } from './fields/field-index.js';
import { applyChange, metaSection, type State } from './knowledge-state.js';
import type { Snapshot } from './persist.js';
import { BodyStore } from './search/body-store.js';
import { restoreIndex } from './search/index-snapshot.js';
import { TaskIndex } from './tasks/task-index.js';

/** How the derived data came to be at open: reloaded, caught up from a tree diff, or built. */
export type LoadSource = 'persisted' | 'incremental' | 'rebuilt';

/**
 * The state a snapshot of `dir` holds, caught up to HEAD from the tree diff when HEAD moved
 * since (commits made outside the server, or landed during a build); none when the snapshot
 * is unreadable, inconsistent or from a commit this repository lacks (the caller rebuilds).
 */
export async function restoreState(
  vault: Vault,
  dir: string,
  snapshot: Snapshot,
): Promise<{ state: State; source: LoadSource } | undefined> {
  if (!snapshot.append) return undefined;
  const bodies = await BodyStore.open(dir, snapshot.append, snapshot.sections['body-table']).catch(() => undefined);
  try {
    if (!bodies) throw new Error('no bodies');
    const saved = (whole: string, changes: string) => {
      const section = snapshot.saved(whole);
      if (!section) throw new Error('a section is missing');
      return { whole: section, changes: snapshot.saved(changes) };
    };
    const state: State = {
      metas: metaSection(saved('metas', 'meta-changes')),
      index: restoreIndex(snapshot.sections, bodies, snapshot.saved),
      fields: new FieldIndex(saved('fields', 'field-changes')),
      tasks: new TaskIndex(saved('tasks', 'task-changes')),
    };
    if (snapshot.commit === vault.head) return { state, source: 'persisted' };
    const { tree: before } = await vault.repo.objects.commit(snapshot.commit);
    const { tree: after } = await vault.repo.objects.commit(vault.head);
    for (const change of await diffPages(vault.repo.trees, before, after)) await applyChange(vault, state, change.path, change.hash);
    return { state, source: 'incremental' };
  } catch {
    await bodies?.close();
    return undefined;
  }
}
