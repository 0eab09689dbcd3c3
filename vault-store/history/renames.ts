import { isPagePath } from '../paths.js';
import type { EntryChange } from './tree-diff.js';

export type ChangeKind = 'created' | 'modified' | 'renamed' | 'deleted';

/** One file's change in one commit, as history tells it. */
export interface HistoryChange {
  path: string;
  kind: ChangeKind;
  /** Blob id after the change; null for a delete. */
  hash: string | null;
  /** Blob id before the change (for `renamed`, at `from`); null for a create. */
  before: string | null;
  /** For `renamed`: the path the page had before this commit. */
  from?: string;
  /** For a `deleted` that was the old side of a rename: where the page went. */
  to?: string;
}

const KIND = { add: 'created', modify: 'modified', delete: 'deleted' } as const;

/**
 * A commit's file changes with its page renames paired up: the rename a `move` recorded in
 * its trailers, then any deleted page whose exact blob was added at another page path in
 * the same commit (`git mv`, a rename in Obsidian or a file manager). A renamed page whose
 * text also changed without a recorded move stays a delete and a create, as in `git log`
 * without similarity detection. `entries` is sorted by path and so is the result.
 */
export function classifyChanges(entries: EntryChange[], moved?: { from: string; to: string }): HistoryChange[] {
  const changes: HistoryChange[] = entries.map((e) => ({ path: e.path, kind: KIND[e.op], hash: e.hash, before: e.before }));
  const byPath = new Map(changes.map((c) => [c.path, c]));
  const pair = (gone: HistoryChange, added: HistoryChange) => {
    Object.assign(added, { kind: 'renamed', from: gone.path, before: gone.before });
    gone.to = added.path;
  };
  const recordedFrom = moved && byPath.get(moved.from);
  const recordedTo = moved && byPath.get(moved.to);
  if (recordedFrom?.kind === 'deleted' && recordedTo?.kind === 'created') pair(recordedFrom, recordedTo);

  const deletedByBlob = new Map<string, HistoryChange[]>();
  for (const c of changes) {
    if (c.kind !== 'deleted' || c.to !== undefined || !isPagePath(c.path)) continue;
    const list = deletedByBlob.get(c.before!) ?? [];
    list.push(c);
    deletedByBlob.set(c.before!, list);
  }
  if (deletedByBlob.size === 0) return changes;
  for (const c of changes) {
    if (c.kind !== 'created' || !isPagePath(c.path)) continue;
    const gone = deletedByBlob.get(c.hash!)?.shift();
    if (gone) pair(gone, c);
  }
  return changes;
}
