import type { CommitInfo } from '../git/repo.js';
import type { TreeStore } from '../git/tree-store.js';
import { commitMeta, type CommitMeta } from '../history/commit-meta.js';
import { diffFiles } from '../history/tree-diff.js';
import type { ObjectReader } from '../git/object-reader.js';

/**
 * An unbroken run of one session's changes to a path: the file before the run's first
 * change and after its last (null: absent), with no other change to it in between.
 */
export interface Run {
  before: string | null;
  after: string | null;
}

/** What a session changed: its commits (newest first) and, per path, its runs (oldest first). */
export interface SessionChanges {
  commits: string[];
  runs: Map<string, Run[]>;
}

/** Which commits belong to the session: by who made them, within a window of commit dates. */
export interface SessionWindow {
  matches: (meta: CommitMeta) => boolean;
  since: Date;
  until?: Date;
}

/**
 * The session's commits on the branch's first-parent chain from `head`, newest first: those
 * dated (author date) within the window whose trailers match. The walk stops at the first
 * commit dated before `since`, so a commit with a clock set back hides older ones, as in
 * `git log --since`.
 */
export async function sessionCommits(objects: ObjectReader, head: string, window: SessionWindow): Promise<CommitInfo[]> {
  const since = window.since.getTime() / 1000;
  const until = window.until ? window.until.getTime() / 1000 : Infinity;
  const found: CommitInfo[] = [];
  for (let oid: string | undefined = head; oid !== undefined;) {
    const commit = await objects.commit(oid);
    if (commit.author.timestamp < since) break;
    if (commit.author.timestamp <= until && window.matches(commitMeta(commit))) found.push(commit);
    oid = commit.parents[0];
  }
  return found;
}

/**
 * What `commits` (newest first) changed, against each one's first parent: per path, runs of
 * changes no other commit came between (the blob a run left is the blob its next change
 * found), so edits others made between two of the session's edits can be kept. Paths not
 * `visible` are left out, and so are commits that changed none but those.
 */
export async function sessionChanges(
  trees: TreeStore,
  objects: ObjectReader,
  commits: CommitInfo[],
  visible: (path: string) => boolean,
): Promise<SessionChanges> {
  const runs = new Map<string, Run[]>();
  const shown: string[] = [];
  for (const commit of [...commits].reverse()) {
    const parent = commit.parents[0];
    const parentTree = parent === undefined ? null : (await objects.commit(parent)).tree;
    const changed = (await diffFiles(trees, parentTree, commit.tree)).filter((c) => visible(c.path));
    if (changed.length) shown.unshift(commit.oid);
    for (const change of changed) {
      const before = parentTree === null ? null : ((await trees.lookup(parentTree, change.path)) ?? null);
      const list = runs.get(change.path) ?? [];
      const last = list[list.length - 1];
      if (last && last.after === before) last.after = change.hash;
      else list.push({ before, after: change.hash });
      runs.set(change.path, list);
    }
  }
  return { commits: shown, runs };
}
