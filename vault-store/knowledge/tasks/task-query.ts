import { QuireError } from '../../errors.js';
import { BoundedHeap } from './bounded-heap.js';
import { isDone, type Task } from './task.js';

export interface TaskQuery {
  /** open: not done (see `isDone`); done: done or cancelled; all: both. */
  status: 'open' | 'done' | 'all';
  /** A folder as `normalizePrefix` gives it ("notes/"), or "" for the whole vault. */
  prefix?: string;
  /** Without `#`; nested tags match ("work" matches "work/acme"), in any case. */
  tag?: string;
  /** `YYYY-MM-DD`; strictly before / after, as the Tasks plugin's `due before`. A task without a due date matches neither. */
  dueBefore?: string;
  dueAfter?: string;
  /** Words the task's text holds, in any case. */
  text?: string;
  limit: number;
  cursor?: string;
  visible?: (path: string) => boolean;
}

export type TaskRow = Task & { path: string; done: boolean };

export interface TaskList {
  tasks: TaskRow[];
  /** Tasks matching, on every page of results. */
  total: number;
  next_cursor: string | null;
}

/** A row's place in the order, which is what a cursor holds. */
interface Place {
  path: string;
  task: Pick<Task, 'due' | 'line'>;
}

interface Row extends Place {
  task: Task;
}

/** Row order as a number's sign: by due date (none last), then path, then line. */
function compareRows(a: Place, b: Place): number {
  const [x, y] = [a.task.due, b.task.due];
  if (x !== y) return x === undefined ? 1 : y === undefined ? -1 : x < y ? -1 : 1;
  if (a.path !== b.path) return a.path < b.path ? -1 : 1;
  return a.task.line - b.task.line;
}

function encodeCursor({ path, task }: Place): string {
  return Buffer.from(JSON.stringify([task.due ?? null, path, task.line])).toString('base64url');
}

function decodeCursor(cursor: string): Place {
  let key: unknown;
  try {
    key = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    key = undefined;
  }
  const [due, path, line] = Array.isArray(key) && key.length === 3 ? key : [];
  if ((due === null || typeof due === 'string') && typeof path === 'string' && Number.isInteger(line)) {
    const place: Place = { path, task: { due: due ?? undefined, line: line as number } };
    if (encodeCursor(place) === cursor) return place;
  }
  throw new QuireError('INVALID_CURSOR', 'cursor is not one this server issued', { cursor });
}

function hasTag(tags: readonly string[], wanted: string): boolean {
  return tags.some((t) => {
    const tag = t.toLowerCase();
    return tag === wanted || tag.startsWith(`${wanted}/`);
  });
}

/** The test a task must pass, with the query's values read once. */
function matcher(query: TaskQuery): (task: Task) => boolean {
  const { status, dueBefore, dueAfter } = query;
  const tag = query.tag?.replace(/^#/, '').toLowerCase();
  const words = query.text?.toLowerCase();
  return (task) =>
    (status === 'all' || isDone(task.status) === (status === 'done')) &&
    (dueBefore === undefined || (task.due !== undefined && task.due < dueBefore)) &&
    (dueAfter === undefined || (task.due !== undefined && task.due > dueAfter)) &&
    (tag === undefined || hasTag(task.tags, tag)) &&
    (words === undefined || task.text.toLowerCase().includes(words));
}

/**
 * One pass over every page's tasks (100k tasks: a few ms) keeping the first `limit` rows
 * after the cursor in a bounded heap (worst on top), so asking for the first page of 80k open
 * tasks costs no sort of them all. `total` counts every match, before and after the cursor.
 */
export function queryTasks(pages: Iterable<[string, readonly Task[]]>, query: TaskQuery): TaskList {
  const prefix = query.prefix ?? '';
  const after = query.cursor === undefined ? undefined : decodeCursor(query.cursor);
  const wanted = matcher(query);
  const best = new BoundedHeap<Row>(query.limit, compareRows);
  let total = 0;
  let remaining = 0;
  for (const [path, tasks] of pages) {
    if (!path.startsWith(prefix) || (query.visible && !query.visible(path))) continue;
    for (const task of tasks) {
      if (!wanted(task)) continue;
      total++;
      const row = { path, task };
      if (after && compareRows(row, after) <= 0) continue;
      remaining++;
      best.offer(row);
    }
  }
  const rows = best.drain().sort(compareRows);
  return {
    tasks: rows.map(({ path, task }) => ({ path, ...task, done: isDone(task.status) })),
    total,
    next_cursor: remaining > rows.length ? encodeCursor(rows[rows.length - 1]) : null,
  };
}
