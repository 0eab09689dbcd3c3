import { KeyedSection, entriesFormat } from '../keyed-section.js';
import type { SavedSection, Sections, Written } from '../persist.js';
import { DueIndex } from './due-index.js';
import type { Task } from './task.js';
import { queryTasks, type TaskList, type TaskQuery } from './task-query.js';

/**
 * Every task item of the vault, by page (only pages that hold one). Derived like the rest of
 * the index and saved as `tasks`, a JSON array of `[path, tasks]`, and `task-changes` between
 * its whole saves. A warm open leaves them on disk until a query needs them (0.2–1.6 s at
 * 100k pages); page changes meanwhile are noted beside them, so a write never waits for that
 * parse (see KeyedSection).
 */
export class TaskIndex {
  private readonly rows: KeyedSection<readonly Task[]>;
  private due: DueIndex | undefined;

  constructor(saved?: { whole: SavedSection; changes?: SavedSection }) {
    this.rows = new KeyedSection({ whole: 'tasks', changes: 'task-changes' }, entriesFormat<readonly Task[]>(), saved);
  }

  private get map(): Map<string, readonly Task[]> {
    return this.rows.map();
  }

  /** Replaces a page's tasks (none: the page is forgotten). */
  set(path: string, tasks: readonly Task[]): void {
    if (!this.rows.loaded) return this.rows.set(path, tasks.length > 0 ? tasks : undefined);
    if (tasks.length === 0 && !this.map.has(path)) return;
    this.delete(path);
    if (tasks.length === 0) return;
    this.rows.set(path, tasks);
    this.due?.add(path, tasks);
  }

  delete(path: string): void {
    if (!this.rows.loaded) return this.rows.set(path, undefined);
    const old = this.map.get(path);
    if (!old) return;
    this.rows.set(path, undefined);
    this.due?.remove(path, old);
  }

  /** A range of due days reads the days' tasks only; anything else reads every task. */
  query(query: TaskQuery): TaskList {
    if (query.dueBefore === undefined && query.dueAfter === undefined) return queryTasks(this.map, query);
    this.due ??= new DueIndex(this.map);
    return queryTasks(this.due.between(query.dueAfter, query.dueBefore), query);
  }

  sections(pages: number): { sections: Sections; written?: Written } {
    return this.rows.sections(pages);
  }

  /** Estimated heap bytes: per task its object, text and dates; per page its entry. */
  memoryBytes(): number {
    let bytes = this.due ? this.due.size * 100 : 0;
    for (const [path, tasks] of this.rows.loaded ? this.map : this.rows.pending) {
      bytes += 80 + path.length + (tasks?.length ?? 0) * 8;
      for (const task of tasks ?? []) bytes += 150 + task.text.length + task.tags.length * 32;
    }
    return bytes;
  }
}
