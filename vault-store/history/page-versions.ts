import { QuireError } from '../errors.js';
import type { ChangeIndex } from './change-index.js';
import type { HistoryChange } from './renames.js';

export type Visible = (path: string) => boolean;

/** One change in a page's history: the commit at `position` changed the page, then at `path`. */
export interface Version {
  position: number;
  path: string;
  change: HistoryChange;
  /** Where the walk goes on after this version: the page's older name after a rename. */
  next: { path: string; before: number };
}

/**
 * A rename to or from a path the caller cannot read is told as a create or a delete: a
 * hidden path is absent from history, not redacted.
 */
export function visibleChange(change: HistoryChange, visible: Visible): HistoryChange {
  if (change.from !== undefined && !visible(change.from)) {
    const { from: _from, ...rest } = change;
    return { ...rest, kind: 'created', before: null };
  }
  if (change.to !== undefined && !visible(change.to)) {
    const { to: _to, ...rest } = change;
    return rest;
  }
  return change;
}

/**
 * The changes of the page now at `path`, newest first, from commits before position
 * `before`, following renames back through the names the caller can read. Each step is a
 * binary search in the path's list of positions, so a page last changed thousands of
 * commits ago costs no more than one changed in the last.
 */
export function* versions(index: ChangeIndex, path: string, before: number, visible: Visible): Generator<Version> {
  let [current, bound] = [path, before];
  for (;;) {
    const list = index.positionsOf(current);
    let k = upperBound(list, bound - 1) - 1;
    let renamedFrom: string | undefined;
    for (; k >= 0 && renamedFrom === undefined; k--) {
      const position = list[k];
      const change = visibleChange(index.changeOf(position, current)!, visible);
      renamedFrom = change.kind === 'renamed' ? change.from : undefined;
      yield { position, path: current, change, next: { path: renamedFrom ?? current, before: position } };
      bound = position;
    }
    if (renamedFrom === undefined) return;
    current = renamedFrom;
  }
}

/** The page (followed back through renames) as it was right after the commit at `position`; undefined: it did not exist. */
export function versionAt(index: ChangeIndex, path: string, position: number, visible: Visible): Version | undefined {
  const first = versions(index, path, position + 1, visible).next();
  return first.done || first.value.change.kind === 'deleted' ? undefined : first.value;
}

/** The newest version of the page (renames followed) whose blob is `hash`. */
export function findVersion(index: ChangeIndex, path: string, hash: string, visible: Visible): Version | undefined {
  for (const version of versions(index, path, index.length, visible)) if (version.change.hash === hash) return version;
  return undefined;
}

/** Index in a sorted list of the first value greater than `value`. */
function upperBound(list: readonly number[], value: number): number {
  let [lo, hi] = [0, list.length];
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (list[mid] <= value) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

const COMMIT = /^[0-9a-f]{7,40}$/;
/** Matched against the lower-cased text. */
const ISO_DATE = /^\d{4}-\d{2}-\d{2}([t ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(z|[+-]\d{2}:?\d{2})?)?$/;

/**
 * The position of the commit `at` names: a commit id of the branch's first-parent history,
 * whole or abbreviated to at least 7 characters (as `git log --oneline` shows it), or an ISO
 * 8601 date or date-time (a date alone is midnight UTC; a time without zone is UTC), meaning
 * the last commit at or before it. A time at or after `now` is the head. Commits that came in
 * only through a merge's second parent are not addressable: history does not list them.
 */
export function resolveAt(index: ChangeIndex, at: string, now = Date.now()): number {
  const text = at.trim().toLowerCase();
  if (COMMIT.test(text)) {
    const exact = text.length === 40 ? index.positionOf(text) : undefined;
    if (exact !== undefined) return exact;
    const matches: number[] = [];
    if (text.length < 40)
      for (let i = 0; i < index.length && matches.length < 2; i++) if (index.commit(i).oid.startsWith(text)) matches.push(i);
    if (matches.length > 1) throw new QuireError('INVALID_REQUEST', `Commit ${at} is ambiguous: give more characters`, { at });
    if (matches.length === 0) throw new QuireError('NOT_FOUND', `No commit ${at} in this vault's history`, { at });
    return matches[0];
  }
  if (!ISO_DATE.test(text)) {
    throw new QuireError('INVALID_REQUEST', `at must be a commit id (7 to 40 hex digits) or an ISO 8601 date; got ${at}`, { at });
  }
  const zoned = /(z|[+-]\d{2}:?\d{2})$/.test(text) || !text.includes(':') ? text : `${text}z`;
  const time = Date.parse(zoned.replace(' ', 't').toUpperCase());
  if (Number.isNaN(time)) throw new QuireError('INVALID_REQUEST', `${at} is not a valid date`, { at });
  if (time >= now) return index.length - 1;
  for (let i = index.length - 1; i >= 0; i--) if (index.commit(i).time <= time) return i;
  throw new QuireError('NOT_FOUND', `No commit at or before ${at}: the vault did not exist yet`, { at });
}
