import { z } from 'zod';
import { QuireError } from '../../vault-store/errors.js';
import { normalizePagePath, normalizePrefix } from '../../vault-store/paths.js';
import { defineOp } from './operation.js';
import { checkSize, visiblePath } from './pages.js';
import { historyPage } from './outputs.js';
import { baseHash, folderPrefix, limit, nextCursor, pageCursor, pagePath } from './schemas.js';

const READ_ONLY = { readOnlyHint: true, destructiveHint: false, idempotentHint: true } as const;
const name = z.string().min(1).max(200);
/** A point in time as `at`, `from` and `to` take it (see resolveAt in vault-store/history/page-versions.ts). */
const pointInTime = z
  .string()
  .min(1)
  .max(64)
  .describe(
    'A commit id (at least 7 hex characters), an ISO 8601 date/time (the last commit at or before it) or a version hash of the page',
  );

function sinceMs(since: string | undefined): number | undefined {
  if (since === undefined) return undefined;
  const ms = Date.parse(since);
  if (Number.isNaN(ms)) throw new QuireError('INVALID_REQUEST', `since: ${since} is not an ISO 8601 date`, { field: 'since' });
  return ms;
}

export const pageHistory = defineOp({
  name: 'page_history',
  description:
    "A page's history (with path): the commits that changed it, newest first, each with when, who (actor, key, app, device, agent), message, the page's hash after it and the kind of change (created, modified, renamed with from, deleted); renames made by move_page are followed. Without path: recent activity across the vault, filterable by agent, key, app and since. Pass a hash or commit to read_page (at) or diff_page to see a version.",
  scope: 'read',
  bucket: 'read',
  input: z.object({
    path: pagePath.optional().describe('A page path; omit it for recent activity across the vault'),
    limit: limit(200, 50),
    cursor: pageCursor,
    agent: name.optional().describe('Only commits made by this agent (its name)'),
    key: name.optional().describe('Only commits made with this API key (its name or id)'),
    app: name.optional().describe('Only commits made by this OAuth app (its name or client id)'),
    since: z.string().max(64).optional().describe('Only commits made at or after this ISO 8601 date/time'),
  }),
  output: historyPage,
  rest: { method: 'get', path: '/vault/history' },
  mcp: { title: 'Page history', annotations: READ_ONLY },
  handler: (ctx, input) =>
    ctx.vault.timeline.history({
      path: input.path === undefined ? undefined : visiblePath(ctx, input.path),
      limit: input.limit,
      cursor: input.cursor,
      filter: { agent: input.agent, key: input.key, app: input.app, since: sinceMs(input.since) },
      visible: ctx.visible,
    }),
});

const diffSide = z.object({
  ref: z.string().describe('What was asked for'),
  commit: z.string().nullable().describe('The commit it resolved to (null for a blob hash)'),
  hash: z.string().nullable().describe('The page blob there; null: the page did not exist'),
  path: z.string().nullable().describe('The path the page had there (renames followed)'),
});

export const diffPage = defineOp({
  name: 'diff_page',
  description:
    'The difference between two versions of a page: from and to are each a commit id, an ISO date (the version at that time) or a page hash from page_history; to defaults to the current version. Returns a unified diff, hunks with line numbers, and front-matter changes field by field.',
  scope: 'read',
  bucket: 'read',
  input: z.object({ path: pagePath, from: pointInTime, to: pointInTime.optional() }),
  output: z.object({
    path: z.string(),
    from: diffSide,
    to: diffSide,
    identical: z.boolean(),
    unified: z.string().describe('A unified diff; empty when identical'),
    hunks: z.array(
      z.object({
        old_start: z.number().int(),
        old_lines: z.number().int(),
        new_start: z.number().int(),
        new_lines: z.number().int(),
        lines: z.array(z.string()).describe('Each line prefixed by " " (context), "-" (removed) or "+" (added)'),
      }),
    ),
    frontmatter: z.array(
      z.object({ field: z.string(), change: z.enum(['added', 'removed', 'changed']), from: z.unknown(), to: z.unknown() }),
    ),
  }),
  rest: { method: 'get', path: '/vault/diff' },
  mcp: { title: 'Diff page versions', annotations: READ_ONLY },
  handler: (ctx, input) =>
    ctx.vault.timeline.diff({ path: visiblePath(ctx, input.path), from: input.from, to: input.to, visible: ctx.visible }),
});

export const restorePage = defineOp({
  name: 'restore_page',
  description:
    'Write an old version of a page back as a new commit (history is kept): at is a commit id or ISO date, or a hash from page_history or list_deleted. Restores deleted pages too (see list_deleted). Give base_hash to restore only over the version you saw. Restoring the version the page already has commits nothing. A propose-mode agent gets a proposal instead.',
  scope: 'write',
  bucket: 'write',
  input: z.object({ path: pagePath, at: pointInTime, base_hash: baseHash }),
  output: z.object({
    path: z.string(),
    restored: z.boolean().describe('False when nothing was committed: the page already had that version, or a proposal was made'),
    hash: z.string().describe('The restored version'),
    version_commit: z.string().describe('The commit that wrote the restored version'),
    commit: z.string().nullable().describe('The new commit; null when nothing was committed'),
    created: z.boolean().describe('True when the page did not exist (a deleted page brought back)'),
    proposal_id: z.string().optional().describe('For a propose-mode agent: the proposal made instead of a commit'),
  }),
  writes: (input) => [normalizePagePath(input.path)],
  proposes: (input) => [normalizePagePath(input.path)],
  rest: { method: 'post', path: '/vault/restore', status: (r: { created: boolean }) => (r.created ? 201 : 200) },
  mcp: { title: 'Restore page version', annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true } },
  handler: async (ctx, input) => {
    const path = visiblePath(ctx, input.path);
    const past = await ctx.vault.timeline.versionAt(path, input.at, ctx.visible);
    const content = new TextDecoder().decode(past.content);
    checkSize(ctx, content);
    const result = { path, hash: past.hash, version_commit: past.changed_in };
    if (ctx.agent?.mode === 'propose') {
      const rationale = `Restore ${path} to its version of commit ${past.changed_in}`;
      const proposal = await ctx.vault.proposals.create(ctx.author, {
        title: `Restore ${path}`,
        rationale,
        changes: [{ path, content, base_hash: input.base_hash }],
      });
      return { ...result, restored: false, commit: null, created: false, proposal_id: proposal.id };
    }
    // The trailer names the version brought back, for history and for undoing the restore.
    const author = { ...ctx.author, trailers: { ...ctx.author.trailers, 'Quire-Restored-From': past.changed_in } };
    const written = await ctx.vault.pages.edit(author, { path, baseHash: input.base_hash, subject: 'Restore' }, content);
    return { ...result, restored: written.commit !== null, commit: written.commit, created: written.created };
  },
});

export const listDeleted = defineOp({
  name: 'list_deleted',
  description:
    'Pages deleted from the vault, most recently deleted first, each with the commit that deleted it and its last hash. Bring one back with restore_page, passing last_hash as at.',
  scope: 'read',
  bucket: 'read',
  input: z.object({ prefix: folderPrefix, limit: limit(1000, 100), cursor: pageCursor }),
  output: z.object({
    pages: z.array(
      z.object({
        path: z.string(),
        commit: z.string().describe('The commit that deleted it'),
        deleted_at: z.string(),
        actor: z.string(),
        last_hash: z.string().describe('The page as it was just before it was deleted'),
      }),
    ),
    next_cursor: nextCursor,
  }),
  rest: { method: 'get', path: '/vault/deleted' },
  mcp: { title: 'List deleted pages', annotations: READ_ONLY },
  handler: (ctx, input) =>
    ctx.vault.timeline.deleted({ prefix: normalizePrefix(input.prefix), limit: input.limit, cursor: input.cursor, visible: ctx.visible }),
});
