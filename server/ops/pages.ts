import { z } from 'zod';
import { capture } from '../../vault-store/capture.js';
import { QuireError } from '../../vault-store/errors.js';
import type { PageView } from '../../vault-store/page-view.js';
import { normalizePagePath, normalizePrefix } from '../../vault-store/paths.js';
import { defineOp, type OpContext } from './operation.js';
import { pageCapture, pageSummary, pageView, pageWrite } from './outputs.js';
import { baseHash, folderPrefix, limit, nextCursor, pageCursor, pagePath } from './schemas.js';

/** A page path the caller may read; a hidden page is reported exactly like a missing one. */
export function visiblePath(ctx: OpContext, raw: string): string {
  const path = normalizePagePath(raw);
  if (!ctx.visible(path)) throw new QuireError('NOT_FOUND', `No page at ${path}`, { path });
  return path;
}

export function checkSize(ctx: OpContext, content: string): void {
  const bytes = Buffer.byteLength(content);
  if (bytes > ctx.config.maxPageBytes) {
    throw new QuireError('PAYLOAD_TOO_LARGE', `Page is ${bytes} bytes; the limit is ${ctx.config.maxPageBytes}`, {
      limit: ctx.config.maxPageBytes,
    });
  }
}

export const mergeFlag = z
  .boolean()
  .optional()
  .describe(
    'With a stale base_hash: merge your edit with the changes made since instead of failing (merged: true in the result); overlapping changes still fail with CONFLICT, plus merge (the page with <<<<<<< ours / >>>>>>> theirs conflict markers) and the three hashes',
  );

/** True when the caller asked to merge a stale edit; refuses the flag without the base_hash it merges from. */
export function mergeRequested(input: { base_hash?: string | null; merge?: boolean }): boolean {
  if (input.merge && input.base_hash === undefined) {
    throw new QuireError('INVALID_REQUEST', 'merge needs base_hash: the version of the page your edit is based on', { field: 'merge' });
  }
  return input.merge === true;
}

/** A write's answer: the page, its commit, and `merged: true` when a stale edit was merged. */
export function writeResult(page: PageView, commit: string | null, created: boolean, merged: boolean) {
  return { ...page, commit, created, ...(merged ? { merged: true as const } : {}) };
}

export const readPage = defineOp({
  name: 'read_page',
  description:
    'Read one page: its markdown content, frontmatter, tags, links and hash. Pass the hash back as base_hash when you edit it. With at (a commit id, an ISO date or a hash from page_history), the page as it was then.',
  scope: 'read',
  bucket: 'read',
  input: z.object({
    path: pagePath,
    at: z
      .string()
      .min(1)
      .max(64)
      .optional()
      .describe('Read the page as it was at a commit (id, 7+ hex characters), an ISO 8601 date/time, or a version hash'),
  }),
  output: pageView.extend({
    commit: z.string().optional().describe('With at: the commit at resolved to'),
    changed_in: z.string().optional().describe('With at: the commit that wrote this version'),
  }),
  rest: { method: 'get', path: '/vault/page/*path', etag: (page) => page.hash },
  mcp: { title: 'Read page', annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true } },
  handler: (ctx, input) =>
    input.at === undefined
      ? ctx.vault.pages.read(visiblePath(ctx, input.path))
      : ctx.vault.readPageAt(visiblePath(ctx, input.path), input.at, ctx.visible),
});

export const listPages = defineOp({
  name: 'list_pages',
  description: 'List pages sorted by path, optionally in one folder (prefix, e.g. "projects"). Returns next_cursor while more remain.',
  scope: 'read',
  bucket: 'read',
  input: z.object({
    prefix: folderPrefix,
    limit: limit(1000, 100),
    cursor: pageCursor,
  }),
  output: z.object({
    pages: z.array(pageSummary),
    next_cursor: nextCursor,
  }),
  rest: { method: 'get', path: '/vault/pages' },
  mcp: { title: 'List pages', annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true } },
  handler: (ctx, input) =>
    ctx.vault.pages.list({ prefix: normalizePrefix(input.prefix), limit: input.limit, cursor: input.cursor, visible: ctx.visible }),
});

export const writePage = defineOp({
  name: 'write_page',
  description:
    "Create or replace a whole page. Give base_hash (from read_page) to avoid overwriting someone else's edit: a mismatch fails with CONFLICT and the current hash, unless merge: true merges your version with the changes made since; base_hash null creates only if the page does not exist.",
  scope: 'write',
  bucket: 'write',
  input: z.object({ path: pagePath, content: z.string(), base_hash: baseHash, merge: mergeFlag }),
  output: pageWrite,
  writes: (input) => [normalizePagePath(input.path)],
  rest: { method: 'post', path: '/vault/page', status: (r: { created: boolean }) => (r.created ? 201 : 200) },
  mcp: { title: 'Write page', annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true } },
  handler: async (ctx, input) => {
    const path = normalizePagePath(input.path);
    checkSize(ctx, input.content);
    const merge = mergeRequested(input);
    const check = (text: string) => checkSize(ctx, text);
    const { page, commit, created, merged } = await ctx.vault.pages.write(ctx.author, {
      path,
      content: input.content,
      baseHash: input.base_hash,
      merge,
      check,
    });
    return writeResult(page, commit, created, merged);
  },
});

export const deletePage = defineOp({
  name: 'delete_page',
  description: 'Delete a page. Give base_hash to delete only the version you read (CONFLICT otherwise). The page stays in git history.',
  scope: 'write',
  bucket: 'write',
  input: z.object({ path: pagePath, base_hash: baseHash }),
  output: z.object({ path: z.string(), deleted: z.literal(true), commit: z.string().describe('The commit that deleted it') }),
  writes: (input) => [normalizePagePath(input.path)],
  rest: { method: 'delete', path: '/vault/page/*path' },
  mcp: { title: 'Delete page', annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false } },
  handler: async (ctx, input) => {
    const path = normalizePagePath(input.path);
    const event = await ctx.vault.pages.delete(ctx.author, { path, baseHash: input.base_hash });
    return { path, deleted: true as const, commit: event.commit };
  },
});

export const capturePage = defineOp({
  name: 'capture',
  description:
    'Save a quick note, clipping or idea as a new page under capture/ (named by date and title). Use this instead of write_page for inbox-style notes.',
  scope: 'capture',
  bucket: 'write',
  input: z.object({
    title: z.string().min(1).max(200),
    source: z.string().max(2048).optional().describe('Where it came from: a URL, an app, a conversation'),
    content: z.string(),
  }),
  output: pageCapture,
  writes: () => ['capture/'],
  rest: { method: 'post', path: '/vault/capture', status: () => 201 },
  mcp: { title: 'Capture note', annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false } },
  handler: async (ctx, input) => {
    checkSize(ctx, input.content);
    const { page, commit } = await capture(ctx.vault.pages, ctx.author, input, new Date());
    return { ...page, commit };
  },
});
