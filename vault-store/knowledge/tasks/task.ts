import type { MarkdownScan } from '../../markdown/scan.js';
import { taskFields, type TaskDates } from '../../markdown/task-fields.js';
import { own } from '../own-string.js';

/**
 * One task item as the index keeps it: built from the page's text alone, never edited (a
 * page's tasks are replaced as a whole when it changes), so a save may serialise it later.
 */
export interface Task extends TaskDates {
  /** 1-based line in the file. */
  line: number;
  /** List items above it: 0 at the top of a list. */
  level: number;
  /** The character between the brackets, as written. */
  status: string;
  /** The task's words: no checkbox, no date markers. */
  text: string;
  /** The heading it sits under, null above the first one. */
  heading: string | null;
  /** Tags written on its line, without `#`. */
  tags: string[];
}

const NO_TAGS: string[] = [];
/**
 * What the index keeps of one page, so a hostile page cannot make it hold many times its own
 * size (1 MiB of "- [ ] t" lines is 131k tasks, tens of MB as objects): the first 10,000 tasks, and of
 * each the first 2,000 characters of its text.
 */
export const MAX_PAGE_TASKS = 10_000;
export const MAX_TASK_TEXT = 2_000;

/**
 * Done means done or cancelled, as the Tasks plugin's `done` filter reads them: `x`, `X` and
 * `-`. Every other character (a space, `/` in progress, `>` forwarded, anything custom) is open.
 */
export function isDone(status: string): boolean {
  return status === 'x' || status === 'X' || status === '-';
}

/** A page's tasks (`spans`, of its scan) from its text, with strings of their own (not slices pinning the page). */
export function pageTasks(text: string, scan: Pick<MarkdownScan, 'headings' | 'tags'>, spans: MarkdownScan['tasks']): Task[] {
  if (spans.length === 0) return [];
  const { headings } = scan;
  const headingTexts = new Map<number, string>();
  return spans.slice(0, MAX_PAGE_TASKS).map((span) => {
    const { text: words, dates } = taskFields(text.slice(span.textAt, Math.min(span.end, span.textAt + MAX_TASK_TEXT)));
    let heading: string | null = null;
    if (span.heading >= 0) {
      heading = headingTexts.get(span.heading) ?? own(headings[span.heading].text);
      headingTexts.set(span.heading, heading);
    }
    const task: Task = {
      line: span.line,
      level: span.level,
      status: span.status,
      text: own(words),
      heading,
      tags: span.tagTo > span.tagFrom ? scan.tags.slice(span.tagFrom, span.tagTo).map((t) => own(t.name)) : NO_TAGS,
    };
    return Object.assign(task, dates);
  });
}
