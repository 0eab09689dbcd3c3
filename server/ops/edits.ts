import { z } from 'zod';
import { QuireError } from '../../vault-store/errors.js';
import { appendText, replaceSection, replaceSpan } from '../../vault-store/edits/text-edits.js';
import { movePage } from '../../vault-store/edits/move.js';
import type { OnStale } from '../../vault-store/edits/stale-edit.js';
import { pageHeadings } from '../../vault-store/knowledge/page-meta.js';
import { normalizePagePath } from '../../vault-store/paths.js';
import { seesWholeVault, withinPrefixes } from './agent-gate.js';
import { defineOp, type OpContext } from './operation.js';
import { checkSize, mergeFlag, mergeRequested, visiblePath, writeResult } from './pages.js';
import { pageView, pageWrite } from './outputs.js';
import { baseHash, blobHash, pagePath } from './schemas.js';

const EDIT = { readOnlyHint: false, destructiveHint: true, idempotentHint: false } as const;

/**
 * One page's read-modify-write (Pages.edit), held to the page size limit. With `merge`, a
 * stale base_hash lands as `onStale` says (see staleEdit).
 */
async function editPage(
  ctx: OpContext,
  input: { path: string; base_hash?: string | null; merge?: boolean },
  edit: (current: string | undefined) => string,
  options: { subject: string; onStale: OnStale },
) {
  const path = normalizePagePath(input.path);
  const onStale = mergeRequested(input) ? options.onStale : undefined;
  const { page, commit, created, merged } = await ctx.vault.pages.edit(
    ctx.author,
    { path, baseHash: input.base_hash, subject: options.subject, onStale, check: (text) => checkSize(ctx, text) },
    edit,
  );
  return writeResult(page, commit, created, merged);
}

export const readPages = defineOp({
  name: 'read_pages',
  description: 'Read several pages at once (up to 50). Missing paths are listed in "missing" instead of failing the call.',
  scope: 'read',
  bucket: 'read',
  input: z.object({ paths: z.array(pagePath).min(1).max(50) }),
  output: z.object({
    pages: z.array(pageView),
    missing: z.array(z.string()).describe('Paths asked for that name no page'),
  }),
  rest: { method: 'post', path: '/vault/pages/batch' },
  mcp: { title: 'Read pages', annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true } },
  handler: async (ctx, input) => {
    const paths = [...new Set(input.paths.map((p) => normalizePagePath(p)))];
    const pages = [];
    const missing = [];
    for (const path of paths) {
      if (ctx.visible(path) && ctx.vault.hasFile(path)) pages.push(await ctx.vault.pages.read(path));
      else missing.push(path);
    }
    return { pages, missing };
  },
});

export const pageOutline = defineOp({
  name: 'page_outline',
  description:
    'The headings of a page with their levels and line ranges (start_line..end_line, 1-based, inclusive), to read or patch one section.',
  scope: 'read',
  bucket: 'read',
  input: z.object({ path: pagePath }),
  output: z.object({
    path: z.string(),
    hash: pageView.shape.hash,
    title: z.string(),
    lines: z.number().int().describe('Lines in the page'),
    headings: z.array(
      z.object({
        level: z.number().int().describe('1 for #, 2 for ##, …'),
        text: z.string(),
        start_line: z.number().int().describe('The heading line (1-based)'),
        end_line: z.number().int().describe("The last line of the heading's section, subsections included"),
      }),
    ),
  }),
  rest: { method: 'get', path: '/vault/outline/*path' },
  mcp: { title: 'Page outline', annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true } },
  handler: async (ctx, input) => {
    const page = await ctx.vault.pages.read(visiblePath(ctx, input.path));
    const lines = page.content.split('\n').length;
    const headings = pageHeadings(page.path, page.content);
    const outline = headings.map((h, i) => {
      // A forward walk, not slice().find(): copying the rest per heading is quadratic, and a
      // 1 MiB page holds 260k headings. Per level, the walks cover disjoint runs: linear.
      let next = i + 1;
      while (next < headings.length && headings[next].level > h.level) next++;
      return { level: h.level, text: h.text, start_line: h.line, end_line: next < headings.length ? headings[next].line - 1 : lines };
    });
    return { path: page.path, hash: page.hash, title: page.title, lines, headings: outline };
  },
});

export const appendToPage = defineOp({
  name: 'append_to_page',
  description:
    "Append text to the end of a page, or to the end of one heading's section. Creates the page if it does not exist (without heading). Good for logs, journals and running lists.",
  scope: 'write',
  bucket: 'write',
  input: z.object({
    path: pagePath,
    text: z.string().min(1),
    heading: z.string().min(1).max(500).optional(),
    base_hash: baseHash,
    merge: mergeFlag.describe('With a stale base_hash, append to the page as it is now instead of failing with CONFLICT'),
  }),
  output: pageWrite,
  writes: (input) => [normalizePagePath(input.path)],
  rest: { method: 'post', path: '/vault/append' },
  mcp: { title: 'Append to page', annotations: EDIT },
  handler: (ctx, input) =>
    editPage(
      ctx,
      input,
      (current) => {
        if (current === undefined && input.heading)
          throw new QuireError('NOT_FOUND', `No page at ${input.path} to append under "${input.heading}"`);
        return appendText(current ?? '', input.text, input.heading);
      },
      // An append means the same on any version of the page: it needs no three-way merge.
      { subject: 'Append to', onStale: 'reapply' },
    ),
});

export const patchPage = defineOp({
  name: 'patch_page',
  description:
    "Change part of a page: replace the body of one heading's section (heading) or one exact text span that occurs once (find). Requires base_hash from read_page.",
  scope: 'write',
  bucket: 'write',
  input: z
    .object({
      path: pagePath,
      heading: z.string().min(1).max(500).optional(),
      find: z.string().min(1).optional(),
      replace: z.string(),
      base_hash: blobHash.describe('The hash of the page version you read'),
      merge: mergeFlag,
    })
    .refine((v) => (v.heading === undefined) !== (v.find === undefined), {
      message: 'give exactly one of heading or find',
      path: ['heading'],
    }),
  output: pageWrite,
  writes: (input) => [normalizePagePath(input.path)],
  rest: { method: 'post', path: '/vault/patch' },
  mcp: { title: 'Patch page', annotations: EDIT },
  handler: (ctx, input) =>
    editPage(
      ctx,
      input,
      (current) => {
        const text = current ?? '';
        return input.heading !== undefined
          ? replaceSection(text, input.heading, input.replace)
          : replaceSpan(text, input.find!, input.replace);
      },
      // Applied to the version it was written against, then merged with what changed since.
      { subject: 'Patch', onStale: 'merge' },
    ),
});

export const movePageOp = defineOp({
  name: 'move_page',
  description: 'Move or rename a page. Every link to it in other pages is rewritten in the same commit.',
  scope: 'write',
  bucket: 'write',
  input: z.object({ from: pagePath, to: pagePath, base_hash: baseHash }),
  output: z.object({
    from: z.string(),
    to: z.string(),
    commit: z.string(),
    hash: pageView.shape.hash,
    rewritten: z.array(z.string()).describe('Pages whose links to it were rewritten in the same commit'),
  }),
  writes: (input) => [normalizePagePath(input.from), normalizePagePath(input.to)],
  rest: { method: 'post', path: '/vault/move' },
  mcp: { title: 'Move page', annotations: EDIT },
  handler: async (ctx, input) => {
    const from = visiblePath(ctx, input.from);
    const to = normalizePagePath(input.to);
    const agent = ctx.agent;
    // Rewriting links edits other pages too: an agent may only move a page whose linkers it may
    // write. Linkers it cannot read are not rewritten at all (see MoveCaller), so never refused here.
    const assertWritable = (paths: string[]) => {
      const outside = agent ? paths.filter((p) => !withinPrefixes(p, agent.write)) : [];
      if (agent && outside.length) {
        throw new QuireError('AGENT_FORBIDDEN', `Moving ${from} rewrites links in pages agent ${agent.name} may not write`, {
          agent: agent.name,
          paths: outside,
        });
      }
    };
    const visible = seesWholeVault(agent) ? undefined : ctx.visible;
    return movePage(
      ctx.vault.pages,
      ctx.vault.knowledge.graph,
      ctx.author,
      { from, to, baseHash: input.base_hash },
      { assertWritable, visible },
    );
  },
});
