import { jsonEntries, parseSection, type SavedSection, type SectionValue } from '../persist.js';
import { DueIndex } from './due-index.js';
import type { Task } from './task.js';
import { queryTasks, type TaskList, type TaskQuery } from './task-query.js';

type Pages = Map<string, readonly Task[]>;

/** The saved section with the page changes made since it was read (an empty list: the page lost its tasks). */
function restored(saved: SavedSection, changes: ReadonlyMap<string, readonly Task[]>): Pages {
  const pages: Pages = new Map(parseSection<[string, Task[]][]>(saved.read()));
  for (const [path, tasks] of changes) {
    if (tasks.length > 0) pages.set(path, tasks);
    else pages.delete(path);
  }
  return pages;
}

/**
 * Every task item of the vault, by page (only pages that hold one). Derived like the rest of
 * the index and saved as its own section, `tasks`: a JSON array of `[path, tasks]`. A warm
 * open leaves the section on disk until a query needs it (0.2–1.6 s at 100k pages);
 * page changes meanwhile are noted beside them, so a write never waits for that parse, and a
 * save merges them outside the write queue.
 */
export class TaskIndex {
  private pages: Pages | { saved: SavedSection; changes: Pages };
  private due: DueIndex | undefined;

  constructor(saved?: SavedSection) {
    this.pages = saved ? { saved, changes: new Map() } : new Map();
  }

  private get map(): Pages {
    if (!(this.pages instanceof Map)) this.pages = restored(this.pages.saved, this.pages.changes);
    return this.pages;
  }

  /** Replaces a page's tasks (none: the page is forgotten). */
  set(path: string, tasks: readonly Task[]): void {
    const { pages } = this;
    if (!(pages instanceof Map)) pages.changes.set(path, tasks);
    else if (tasks.length > 0 || pages.has(path)) {
      this.delete(path);
      if (tasks.length === 0) return;
      pages.set(path, tasks);
      this.due?.add(path, tasks);
    }
  }

  delete(path: string): void {
    const { pages } = this;
    if (!(pages instanceof Map)) return void pages.changes.set(path, []);
    const old = pages.get(path);
    if (!old) return;
    pages.delete(path);
    this.due?.remove(path, old);
  }

  /** A range of due days reads the days' tasks only; anything else reads every task. */
  query(query: TaskQuery): TaskList {
    if (query.dueBefore === undefined && query.dueAfter === undefined) return queryTasks(this.map, query);
    this.due ??= new DueIndex(this.map);
    return queryTasks(this.due.between(query.dueAfter, query.dueBefore), query);
  }

  /**
   * Taken inside the write queue, serialised outside it: the list of entries (or of changes)
   * is copied here, and a page's tasks are replaced on change, never edited.
   */
  section(): SectionValue {
    const { pages } = this;
    if (pages instanceof Map) return jsonEntries(pages);
    if (pages.changes.size === 0) return pages.saved;
    const { saved } = pages;
    const changes = new Map(pages.changes);
    return () => jsonEntries(restored(saved, changes))();
  }

  /** Estimated heap bytes: per task its object, text and dates; per page its entry. */
  memoryBytes(): number {
    const { pages } = this;
    let bytes = this.due ? this.due.size * 100 : 0;
    for (const [path, tasks] of pages instanceof Map ? pages : pages.changes) {
      bytes += 80 + path.length + tasks.length * 8;
      for (const task of tasks) bytes += 150 + task.text.length + task.tags.length * 32;
    }
    return bytes;
  }
}
