import { z } from 'zod';
import { normalizePagePath, normalizePrefix } from '../../vault-store/paths.js';
import { defineOp } from './operation.js';
import { indexedCommit } from './outputs.js';
import { blobHash, folderPrefix, limit, nextCursor, pageCursor, pagePath } from './schemas.js';

const day = z.string().regex(/^\d{4}-\d{2}-\d{2}$/, 'must be a date, YYYY-MM-DD');
const dated = (what: string) => day.optional().describe(what);

const taskRow = z.object({
  path: z.string(),
  line: z.number().int().describe('1-based line of the task in the page'),
  level: z.number().int().describe('List items above it: 0 at the top of a list'),
  status: z.string().describe('The character between the brackets as written: " " open, "x" done, "/" in progress, "-" cancelled, …'),
  done: z.boolean().describe('True for x, X and - (cancelled); every other status is open'),
  text: z.string().describe('The task without its checkbox and date markers'),
  heading: z.string().nullable().describe('The heading the task sits under; null above the first heading'),
  tags: z.array(z.string()).describe("Tags written on the task's line, without #"),
  due: dated('📅 or [due:: …]'),
  scheduled: dated('⏳ or [scheduled:: …]'),
  start: dated('🛫 or [start:: …]'),
  completion: dated('✅ or [completion:: …]: the day it was done'),
  created: dated('➕ or [created:: …]'),
  cancelled: dated('❌ or [cancelled:: …]'),
});

/**
 * The status to write: "done" is x, "open" a space, or one character as written (/, -, …).
 * Not a bracket or a line break, which would end the checkbox or the line.
 */
const statusInput = z
  .string()
  .refine((s) => s === 'done' || s === 'open' || ([...s].length === 1 && !/[[\]\r\n]/.test(s)), {
    message: 'must be "done", "open" or one character other than [, ] or a line break',
  })
  .describe('"done" (writes x), "open" (writes a space), or the one character to write, e.g. "/" in progress, "-" cancelled');

/** The day a completion is dated: UTC, as capture names its files. */
const today = () => new Date().toISOString().slice(0, 10);

export const listTasks = defineOp({
  name: 'list_tasks',
  description:
    'Task items across the vault ("- [ ] …", "- [x] …", any status character), sorted by due date (none last), then path and line. ' +
    'Dates are read as the Tasks plugin writes them (📅 due, ⏳ scheduled, 🛫 start, ✅ done, ➕ created, ❌ cancelled) or as Dataview fields ([due:: 2026-12-01]). ' +
    'Filters: status (open, done, all; default open), prefix (folder), tag (nested tags match), due_before / due_after (strictly before / after, YYYY-MM-DD), text. ' +
    'Overdue: status=open, due_before=<today>. Pass line and the page hash to set_task_status to tick one off.',
  scope: 'read',
  bucket: 'read',
  input: z.object({
    status: z.enum(['open', 'done', 'all']).default('open').describe('open: not done; done: done or cancelled; all'),
    prefix: folderPrefix,
    tag: z.string().max(200).optional().describe('Only tasks with this tag on their line (without "#"; nested tags match)'),
    due_before: dated('Only tasks due strictly before this day'),
    due_after: dated('Only tasks due strictly after this day'),
    text: z.string().min(1).max(500).optional().describe('Only tasks whose text contains this, in any case'),
    limit: limit(1000, 100),
    cursor: pageCursor,
  }),
  output: z.object({
    tasks: z.array(taskRow),
    total: z.number().int().describe('Tasks matching, on every page of results'),
    next_cursor: nextCursor,
    indexed_commit: indexedCommit,
  }),
  rest: { method: 'get', path: '/vault/tasks' },
  mcp: { title: 'List tasks', annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true } },
  handler: async (ctx, input) =>
    ctx.vault.knowledge.tasks({
      status: input.status,
      prefix: normalizePrefix(input.prefix),
      tag: input.tag,
      dueBefore: input.due_before,
      dueAfter: input.due_after,
      text: input.text,
      limit: input.limit,
      cursor: input.cursor,
      visible: ctx.visible,
    }),
});

export const setTaskStatusOp = defineOp({
  name: 'set_task_status',
  description:
    'Tick off, reopen or otherwise set one task: only its checkbox character changes, in one commit. ' +
    'When the page already writes Tasks-plugin dates, completing adds "✅ <today, UTC>" and reopening removes it. ' +
    'Give line and base_hash from list_tasks or read_page: if the page changed since, CONFLICT returns current_hash and, when the task is still there, its line now.',
  scope: 'write',
  bucket: 'write',
  input: z.object({
    path: pagePath,
    line: z.number().int().min(1).describe('1-based line of the task, in the version base_hash names'),
    status: statusInput,
    base_hash: blobHash.describe('The hash of the page version the line number comes from'),
  }),
  output: z.object({
    path: z.string(),
    hash: z.string().describe('The page hash after the change: pass it as base_hash for the next one'),
    commit: z.string().nullable().describe('null when the task already had this status (nothing committed)'),
    task: taskRow,
  }),
  writes: (input) => [normalizePagePath(input.path)],
  rest: { method: 'post', path: '/vault/task' },
  mcp: { title: 'Set task status', annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true } },
  handler: async (ctx, input) => {
    const status = input.status === 'done' ? 'x' : input.status === 'open' ? ' ' : input.status;
    const { line, base_hash: baseHash } = input;
    return ctx.vault.setTaskStatus(ctx.author, { path: normalizePagePath(input.path), line, status, baseHash, today: today() });
  },
});
