import { z } from 'zod';
import { unreferencedAttachments } from '../../vault-store/knowledge/graph/attachment-links.js';
import { seesWholeVault } from './agent-gate.js';
import { defineOp } from './operation.js';
import { lintReport } from './knowledge.js';
import { indexedCommit, lintCounts } from './outputs.js';

export const health = defineOp({
  name: 'vault_health',
  description:
    'Is the vault healthy? Index freshness (indexed commit vs HEAD), pending external edits and the working files never committed (invalid names, symbolic links), file watcher state, git state, lint counts and attachments (total, unreferenced). Status is "degraded" when derived data lags or the watcher failed. Also the memory this vault holds while loaded.',
  scope: 'read',
  bucket: 'read',
  input: z.object({}),
  output: z.object({
    status: z.enum(['ok', 'degraded']).describe('degraded: the index lags HEAD, or the file watcher is off or failed'),
    index: z.object({
      indexed_commit: indexedCommit,
      head: z.string(),
      fresh: z.boolean().describe('The index reflects HEAD'),
      pages: z.number().int(),
    }),
    external_edits: z.object({
      pending: z.number().int().nullable().describe('Folder edits not committed yet (null without a file watcher)'),
      skipped: z
        .array(z.object({ path: z.string(), reason: z.string() }))
        .describe('Working files never committed: invalid names or symbolic links'),
    }),
    watcher: z.object({
      watching: z.boolean(),
      folders: z.number().int().optional(),
      last_commit: z.object({ commit: z.string(), at: z.string(), files: z.number().int() }).nullable().optional(),
      last_error: z.object({ message: z.string(), at: z.string() }).nullable().optional(),
    }),
    git: z.object({
      head: z.string(),
      branch: z.string(),
      queued_writes: z.number().int().optional(),
      working_tree_clean: z.boolean().nullable().describe('null without a file watcher'),
    }),
    lint: lintCounts,
    attachments: z.object({
      total: z.number().int().describe('Files of the vault that are no page (images, PDFs, …)'),
      unreferenced: z.number().int().describe('Attachments no page links to or embeds'),
    }),
    memory: z
      .object({
        vault_bytes: z
          .number()
          .int()
          .describe('Estimated memory this vault holds while loaded: search index, link graph, page metadata, file list'),
      })
      .optional()
      .describe(
        'Absent for an agent limited to some folders. Server-wide figures (loaded vaults, RSS, budget) go to the operator log only',
      ),
  }),
  rest: { method: 'get', path: '/vault/health' },
  mcp: { title: 'Vault health', annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true } },
  handler: async (ctx) => {
    const { vault } = ctx;
    const { knowledge } = vault;
    const watcher = await ctx.services.vaults.watchers?.get(ctx.user);
    const state = watcher?.state();
    // An agent limited to some folders gets their figures only: nothing about the rest, not even counts.
    const whole = seesWholeVault(ctx.agent);
    const uncommitted = watcher ? (await watcher.uncommitted()).filter(ctx.visible) : undefined;
    const head = vault.head;
    const fresh = knowledge.indexedCommit === head;
    const watching = state?.watching ?? false;
    const { counts } = lintReport(ctx);
    const attachments = vault.attachmentPaths().filter(ctx.visible);
    const pages = [...knowledge.metas.values()].filter((page) => ctx.visible(page.path));
    return {
      status: fresh && (watching || !ctx.services.vaults.watchers) && !state?.lastError ? ('ok' as const) : ('degraded' as const),
      index: { indexed_commit: knowledge.indexedCommit, head, fresh, pages: [...knowledge.metas.keys()].filter(ctx.visible).length },
      external_edits: { pending: uncommitted?.length ?? null, skipped: (state?.skipped ?? []).filter((s) => ctx.visible(s.path)) },
      watcher:
        state && whole
          ? { watching: state.watching, folders: state.folders, last_commit: state.lastCommit ?? null, last_error: state.lastError ?? null }
          : { watching: state?.watching ?? false },
      git: {
        head,
        branch: 'main',
        ...(whole ? { queued_writes: vault.pendingWrites } : {}),
        // The watcher commits every settled edit; the unsettled ones are what differs from HEAD now.
        working_tree_clean: uncommitted ? uncommitted.length === 0 : null,
      },
      lint: counts,
      attachments: { total: attachments.length, unreferenced: unreferencedAttachments(pages, attachments) },
      ...(whole ? { memory: { vault_bytes: ctx.vault.memoryBytes() } } : {}),
    };
  },
});
