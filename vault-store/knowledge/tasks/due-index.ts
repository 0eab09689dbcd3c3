import { lowerBound } from '../../sorted.js';
import type { Task } from './task.js';

type Entry = [path: string, tasks: readonly Task[]];

/**
 * The tasks that have a due date, by day: a query for a range of days ("due this week")
 * reads only the tasks due then, not every task of the vault. Made when a query first asks
 * for a range, then kept in step with every page change.
 */
export class DueIndex {
  /** Days holding a task, ascending. */
  private readonly days: string[] = [];
  private readonly byDay = new Map<string, Entry[]>();
  private held = 0;

  constructor(pages: Iterable<Entry>) {
    for (const [path, tasks] of pages) this.add(path, tasks);
  }

  /** Tasks held, for the memory estimate. */
  get size(): number {
    return this.held;
  }

  add(path: string, tasks: readonly Task[]): void {
    for (const task of tasks) {
      if (task.due === undefined) continue;
      let entries = this.byDay.get(task.due);
      if (!entries) {
        this.byDay.set(task.due, (entries = []));
        this.days.splice(lowerBound(this.days, task.due), 0, task.due);
      }
      entries.push([path, [task]]);
      this.held++;
    }
  }

  remove(path: string, tasks: readonly Task[]): void {
    for (const due of new Set(tasks.map((t) => t.due))) {
      if (due === undefined) continue;
      const entries = this.byDay.get(due)!;
      const kept = entries.filter(([p]) => p !== path);
      this.held -= entries.length - kept.length;
      if (kept.length > 0) this.byDay.set(due, kept);
      else {
        this.byDay.delete(due);
        this.days.splice(lowerBound(this.days, due), 1);
      }
    }
  }

  /** The tasks due strictly after `after` and strictly before `before` (either may be open), one entry each. */
  *between(after: string | undefined, before: string | undefined): Iterable<Entry> {
    let i = after === undefined ? 0 : lowerBound(this.days, after);
    if (after !== undefined && this.days[i] === after) i++;
    const end = before === undefined ? this.days.length : lowerBound(this.days, before);
    for (; i < end; i++) yield* this.byDay.get(this.days[i])!;
  }
}
