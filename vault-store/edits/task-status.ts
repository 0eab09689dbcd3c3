import { isQuireError, QuireError } from '../errors.js';
import { isDone, pageTasks } from '../knowledge/tasks/task.js';
import { bodyStart } from '../markdown/frontmatter.js';
import { scanMarkdown, type MarkdownScan, type TaskSpan } from '../markdown/scan.js';
import { DONE_MARKERS, doneMarker, taskFields } from '../markdown/task-fields.js';
import type { Pages } from '../pages.js';
import type { Author, Vault } from '../vault.js';

export interface TaskStatusInput {
  path: string;
  /** 1-based line of the task in the version `baseHash`. */
  line: number;
  /** The new character between the brackets. */
  status: string;
  baseHash: string;
  /** The day a completion is dated, `YYYY-MM-DD`. */
  today: string;
}

const decoder = new TextDecoder();
const completed = (status: string) => status === 'x' || status === 'X';
const scanOf = (text: string): MarkdownScan => scanMarkdown(text, bodyStart(text));
const fieldsOf = (text: string, task: TaskSpan) => taskFields(text.slice(task.textAt, task.end));

/** The text after a task's marker with a done marker added: before a trailing block id (`^id`), as the Tasks plugin puts it. */
function withDoneMarker(rest: string, today: string): string {
  const trimmed = rest.trimEnd();
  const blockId = /\s\^[A-Za-z0-9-]+$/.exec(trimmed);
  const at = blockId ? blockId.index : trimmed.length;
  const words = trimmed.slice(0, at);
  return `${words}${words === '' ? '' : ' '}${doneMarker(today)}${trimmed.slice(at)}`;
}

/**
 * The page with the task on `line` set to `status`: only its checkbox character changes, but
 * completing it (to x or X) appends `✅ <today>` when the page already writes Tasks-plugin
 * dates, and leaving x/X removes the done markers the line holds.
 */
export function withTaskStatus(text: string, line: number, status: string, today: string): string {
  const { tasks } = scanOf(text);
  const task = tasks.find((t) => t.line === line);
  if (!task) throw new QuireError('INVALID_REQUEST', `Line ${line} is not a task item`, { field: 'line', line });
  let rest = text.slice(task.textAt, task.end);
  if (completed(task.status) && !completed(status)) rest = rest.replace(DONE_MARKERS, '');
  const dated = rest.search(DONE_MARKERS) >= 0;
  if (!completed(task.status) && completed(status) && !dated && tasks.some((t) => fieldsOf(text, t).emoji)) {
    rest = withDoneMarker(rest, today);
  }
  // `- [ ]` at the line end has no space after its bracket for a done marker to follow.
  const marker = text.slice(task.statusAt + task.status.length, task.textAt);
  const gap = marker === ']' && rest !== '' ? ' ' : '';
  return text.slice(0, task.statusAt) + status + marker + gap + rest + text.slice(task.end);
}

/**
 * The line in `after` of the task on `line` of `before`: the task with the same words, the
 * same one of them when the page holds as many as before (the second "Call Ann" stays the
 * second), else the one nearest the old line.
 */
function movedLine(before: string, after: string, line: number): number | undefined {
  const sameWords = (text: string, words: string) => scanOf(text).tasks.filter((t) => fieldsOf(text, t).text === words);
  const seen = scanOf(before).tasks.find((t) => t.line === line);
  if (!seen) return undefined;
  const words = fieldsOf(before, seen).text;
  const was = sameWords(before, words);
  const now = sameWords(after, words);
  if (now.length === was.length) return now[was.findIndex((t) => t.line === line)].line;
  now.sort((a, b) => Math.abs(a.line - line) - Math.abs(b.line - line));
  return now[0]?.line;
}

/** A stale base_hash's CONFLICT with the current hash and, when the task is still there, its line now. */
async function conflict(vault: Vault, input: TaskStatusInput, err: QuireError): Promise<QuireError> {
  const current = await vault.readFile(input.path);
  const base = await vault.repo.objects.blob(input.baseHash).catch(() => undefined);
  const line = current && base ? movedLine(decoder.decode(base), decoder.decode(current.content), input.line) : undefined;
  const details = { ...err.details, current_hash: current?.oid ?? null, ...(line === undefined ? {} : { line }) };
  const where = line === undefined ? '' : line === input.line ? `; the task is still on line ${line}` : `; the task is now on line ${line}`;
  return new QuireError('CONFLICT', `${err.message}${where}`, details);
}

/** Sets one task's checkbox, in one commit (none when it already reads so); see `withTaskStatus`. */
export async function setTaskStatus(pages: Pages, vault: Vault, author: Author, input: TaskStatusInput) {
  const { path, line, status, baseHash, today } = input;
  if (!vault.manifest.get(path)) throw new QuireError('NOT_FOUND', `No page at ${path}`, { path });
  const subject = completed(status) ? 'Complete task in' : isDone(status) ? 'Cancel task in' : 'Reopen task in';
  let text = '';
  try {
    const { page, commit } = await pages.edit(author, { path, baseHash, subject }, (current) => {
      if (current === undefined) throw new QuireError('NOT_FOUND', `No page at ${path}`, { path });
      text = withTaskStatus(current, line, status, today);
      return text;
    });
    const scan = scanOf(text);
    const [task] = pageTasks(text, scan, [scan.tasks.find((t) => t.line === line)!]);
    return { path, hash: page.hash, commit, task: { path, ...task, done: isDone(task.status) } };
  } catch (err) {
    throw isQuireError(err) && err.code === 'CONFLICT' ? await conflict(vault, input, err) : err;
  }
}
