import { z } from 'zod';
import { defineOp } from './operation.js';
import { indexedCommit } from './outputs.js';
import { limit, nextCursor } from './schemas.js';

/** A query's rows are looked at for at most this long; past it the query is refused (400) and should be narrowed. */
export const QUERY_BUDGET_MS = 2000;

const field = z.string().min(1).max(200);

export const queryPages = defineOp({
  name: 'query_pages',
  description: [
    'Structured query over pages, like Dataview: front-matter fields, tags, links and page facts.',
    'from (optional, narrows first and is cheaper): "projects" (a folder), "#meeting" (a tag, nested tags included), "[[Acme]]" (pages linking to Acme), "outgoing([[Acme]])" (pages Acme links to).',
    'where: a JsonLogic expression over each page\'s row: its front-matter keys (lower-cased; spaces and dashes allowed, e.g. {"var":"due date"}) and path, folder, title, tags, aliases, links, backlinks_count, words, size, created_at, updated_at, hash.',
    'ISO dates compare as dates ("2026-12-01"); a [[link]] value compares as the path it resolves to.',
    'Books rated 4 or more, newest first: {"where":{"and":[{"==":[{"var":"type"},"book"]},{">=":[{"var":"rating"},4]}]},"sort":[{"field":"read","dir":"desc"}],"fields":["rating","read"]}.',
    'Pages tagged #meeting linking to [[Acme]]: {"from":"#meeting","where":{"in":["[[Acme]]",{"var":"links"}]}}.',
    'Rows have path, title and the fields asked for (default: every front-matter field); sort puts missing values last; pass next_cursor back as cursor for the next page.',
  ].join(' '),
  scope: 'read',
  bucket: 'read',
  // Without `from` every page is looked at.
  bucketFor: (input) => (input.from === undefined ? 'expensive' : 'read'),
  input: z.object({
    from: z
      .string()
      .min(1)
      .max(1024)
      .optional()
      .describe('"folder", "#tag", "[[Page]]" (pages linking to it) or "outgoing([[Page]])"; omitted: the whole vault'),
    where: z
      .record(z.string(), z.unknown())
      .optional()
      .describe('A JsonLogic expression, e.g. {">=":[{"var":"rating"},4]}; at most 32 levels and 1,000 nodes'),
    sort: z
      .array(z.object({ field, dir: z.enum(['asc', 'desc']).default('asc') }))
      .max(8)
      .optional()
      .describe('Sort keys in order, then path; missing values last'),
    fields: z
      .array(field)
      .max(100)
      .optional()
      .describe('The columns of each row besides path and title; omitted: every front-matter field'),
    limit: limit(1000, 100),
    cursor: z.string().max(4096).optional().describe('next_cursor of the previous page (same from, where and sort)'),
  }),
  output: z.object({
    rows: z.array(z.object({ path: z.string(), title: z.string() }).catchall(z.unknown())),
    total: z.number().int().describe('Pages matching, over all pages of results'),
    next_cursor: nextCursor,
    indexed_commit: indexedCommit,
  }),
  rest: { method: 'post', path: '/vault/query' },
  mcp: { title: 'Query pages', annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true } },
  handler: async (ctx, input) => ctx.vault.knowledge.query(input, ctx.visible, QUERY_BUDGET_MS),
});
