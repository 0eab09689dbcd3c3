import { QuireError } from '../errors.js';
import { isPagePath, underPrefix } from '../paths.js';
import { HIDDEN_MESSAGE } from './changes.js';
import type { ChangeIndex, IndexedCommit } from './change-index.js';
import { madeBy, type CommitMeta, type MadeBy } from './commit-meta.js';
import type { ChangeKind } from './renames.js';
import { versions, visibleChange, type Visible } from './page-versions.js';

/** A page's change as history lists it. */
export interface PageChange {
  path: string;
  kind: ChangeKind;
  /** The page's blob after the commit; null when deleted. */
  hash: string | null;
  from?: string;
  to?: string;
}

export type HistoryEntry = { commit: string } & Omit<CommitMeta, 'moved'> & { changes: PageChange[] };

export interface HistoryPage {
  entries: HistoryEntry[];
  next_cursor: string | null;
}

/** Who made the commits to list (see matches). */
export interface HistoryFilter extends MadeBy {
  /** Milliseconds: only commits authored at or after it. */
  since?: number;
}

/** Commits since the filter's date made by the credential it names (see `madeBy`). */
function matches(commit: IndexedCommit, filter: HistoryFilter): boolean {
  return (filter.since === undefined || commit.time >= filter.since) && madeBy(commit.meta, filter);
}

function entryOf(commit: IndexedCommit, changes: PageChange[], visible: Visible): HistoryEntry {
  const { moved: _moved, ...meta } = commit.meta;
  const hidden = commit.changes.some((c) => !visible(c.path));
  return { commit: commit.oid, ...meta, ...(hidden ? { message: HIDDEN_MESSAGE } : {}), changes };
}

function pageChange(change: { path: string; kind: ChangeKind; hash: string | null; from?: string; to?: string }): PageChange {
  const { path, kind, hash, from, to } = change;
  return { path, kind, hash, ...(from !== undefined ? { from } : {}), ...(to !== undefined ? { to } : {}) };
}

/** The commits that changed the page at `path` (following renames), newest first. */
export function pageHistory(
  index: ChangeIndex,
  input: { path: string; limit: number; cursor?: string; filter: HistoryFilter; visible: Visible },
): HistoryPage {
  const start = input.cursor ? decodeCursor(index, input.cursor) : { path: input.path, position: index.length };
  if (start.path === undefined || !input.visible(start.path) || (!input.cursor && index.positionsOf(start.path).length === 0)) {
    throw new QuireError('NOT_FOUND', `No history for ${input.path}`, { path: input.path });
  }
  const entries: HistoryEntry[] = [];
  let resume: { path: string; before: number } | undefined;
  for (const version of versions(index, start.path, start.position, input.visible)) {
    const commit = index.commit(version.position);
    if (!matches(commit, input.filter)) continue;
    if (entries.length === input.limit) return { entries, next_cursor: encodeCursor(index, resume!.before, resume!.path) };
    entries.push(entryOf(commit, [pageChange(version.change)], input.visible));
    resume = version.next;
  }
  return { entries, next_cursor: null };
}

/** Recent activity across the vault: commits that changed pages the caller can read, newest first. */
export function activity(
  index: ChangeIndex,
  input: { limit: number; cursor?: string; filter: HistoryFilter; visible: Visible },
): HistoryPage {
  const start = input.cursor ? decodeCursor(index, input.cursor).position : index.length;
  const entries: HistoryEntry[] = [];
  for (let position = start - 1; position >= 0; position--) {
    const commit = index.commit(position);
    if (!matches(commit, input.filter)) continue;
    const changes = commit.changes.filter((c) => isPagePath(c.path) && input.visible(c.path));
    if (changes.length === 0) continue;
    if (entries.length === input.limit)
      return { entries, next_cursor: encodeCursor(index, index.positionOf(entries[entries.length - 1].commit)!) };
    entries.push(
      entryOf(
        commit,
        changes.map((c) => pageChange(visibleChange(c, input.visible))),
        input.visible,
      ),
    );
  }
  return { entries, next_cursor: null };
}

export interface DeletedPage {
  path: string;
  /** The commit that deleted it. */
  commit: string;
  deleted_at: string;
  actor: string;
  /** The page's blob just before it was deleted: what restoring brings back. */
  last_hash: string;
}

/**
 * Pages that are gone from the vault, the most recently deleted first: a path whose last
 * change is a delete that was not the old side of a rename the caller can follow.
 */
export function deletedPages(
  index: ChangeIndex,
  input: { prefix: string; limit: number; cursor?: string; visible: Visible },
): { pages: DeletedPage[]; next_cursor: string | null } {
  const found: { position: number; path: string; hash: string }[] = [];
  for (const path of index.paths()) {
    if (!isPagePath(path) || !underPrefix(path, input.prefix) || !input.visible(path)) continue;
    const positions = index.positionsOf(path);
    const position = positions[positions.length - 1];
    const change = visibleChange(index.changeOf(position, path)!, input.visible);
    if (change.kind === 'deleted' && change.to === undefined) found.push({ position, path, hash: change.before! });
  }
  found.sort((a, b) => b.position - a.position || (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  let from = 0;
  if (input.cursor) {
    const after = decodeCursor(index, input.cursor);
    from = found.findIndex((f) => f.position < after.position || (f.position === after.position && f.path > (after.path ?? '')));
    if (from < 0) from = found.length;
  }
  const slice = found.slice(from, from + input.limit);
  const pages = slice.map(({ position, path, hash }) => {
    const { oid, meta } = index.commit(position);
    return { path, commit: oid, deleted_at: meta.at, actor: meta.actor, last_hash: hash };
  });
  const last = slice[slice.length - 1];
  const more = from + input.limit < found.length;
  return { pages, next_cursor: more ? encodeCursor(index, last.position, last.path) : null };
}

/**
 * A cursor is where the next page starts: a commit (and a path), opaque to clients. It names
 * the commit, not its position, so after a rewritten history it fails as INVALID_CURSOR
 * instead of silently pointing elsewhere.
 */
function encodeCursor(index: ChangeIndex, position: number, path?: string): string {
  const commit = index.commit(position).oid;
  return Buffer.from(JSON.stringify({ c: commit, ...(path !== undefined ? { p: path } : {}) })).toString('base64url');
}

function decodeCursor(index: ChangeIndex, cursor: string): { path?: string; position: number } {
  let parsed: { c?: unknown; p?: unknown } = {};
  try {
    parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    // Reported below, like any other cursor this server did not issue.
  }
  const position = typeof parsed.c === 'string' ? index.positionOf(parsed.c) : undefined;
  if (position === undefined || (parsed.p !== undefined && typeof parsed.p !== 'string')) {
    throw new QuireError('INVALID_CURSOR', 'cursor is not one this server issued, or history was rewritten since: start again without it', {
      cursor,
    });
  }
  return { path: parsed.p as string | undefined, position };
}
