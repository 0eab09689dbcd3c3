import { z } from 'zod';
import { normalizePagePath } from '../../vault-store/paths.js';
import { PROPOSAL_STATUSES } from '../../vault-store/proposals/proposal.js';
import { defineOp, type OpContext } from './operation.js';
import { checkSize } from './pages.js';
import { applies, proposalRecord } from './outputs.js';
import { baseHash, pagePath } from './schemas.js';

const OWNER_ONLY = "Approving and rejecting is the owner's decision: REST with an owner key or the account area, never an assistant";
const READ_ONLY = { readOnlyHint: true, destructiveHint: false, idempotentHint: true } as const;

const proposalId = z.string().regex(/^[0-9a-z-]{1,64}$/, 'a proposal id as create_proposal returned it');

const change = z
  .object({
    path: pagePath,
    content: z.string().optional().describe('The whole new content of the page'),
    delete: z.literal(true).optional().describe('Delete the page instead'),
    base_hash: baseHash,
  })
  .refine((c) => (c.content === undefined) !== (c.delete === undefined), 'give either content or delete: true');

const proposals = (ctx: OpContext) => ctx.vault.proposals;

export const createProposal = defineOp({
  name: 'create_proposal',
  description:
    'Propose changes for the vault owner to review and approve, instead of writing directly (the way for a propose-mode agent to change pages). Each change gives a path and either the whole new content or delete: true; pass base_hash from read_page so approval detects edits made since. Returns the pending proposal with its id.',
  scope: 'write',
  bucket: 'write',
  input: z.object({
    title: z.string().min(1).max(200),
    rationale: z.string().max(10_000).default('').describe('Why: shown to the owner next to the diff'),
    changes: z.array(change).min(1).max(100),
  }),
  output: proposalRecord,
  proposes: (input) => input.changes.map((c) => normalizePagePath(c.path)),
  rest: { method: 'post', path: '/vault/proposals', status: () => 201 },
  mcp: { title: 'Propose changes', annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false } },
  handler: async (ctx, input) => {
    for (const c of input.changes) if (c.content !== undefined) checkSize(ctx, c.content);
    const changes = input.changes.map((c) => ({ ...c, path: normalizePagePath(c.path) }));
    return proposals(ctx).create(ctx.author, { title: input.title, rationale: input.rationale, changes });
  },
});

export const listProposals = defineOp({
  name: 'list_proposals',
  description: 'List proposals, newest first, optionally by status (pending, approved, rejected).',
  scope: 'read',
  bucket: 'read',
  input: z.object({ status: z.enum(PROPOSAL_STATUSES).optional() }),
  output: z.object({ proposals: z.array(proposalRecord).describe('Newest first') }),
  rest: { method: 'get', path: '/vault/proposals' },
  mcp: { title: 'List proposals', annotations: READ_ONLY },
  handler: async (ctx, input) => ({ proposals: await proposals(ctx).list({ status: input.status, visible: ctx.visible }) }),
});

export const getProposal = defineOp({
  name: 'get_proposal',
  description:
    'One proposal with a unified diff per page against the page as it is now, and whether it still applies: clean, merge (the page moved but the edits do not overlap) or conflict.',
  scope: 'read',
  bucket: 'read',
  input: z.object({ id: proposalId }),
  output: proposalRecord.extend({
    applies: applies.describe('clean: applies as is; merge: pages moved but the edits do not overlap; conflict: they do'),
    diffs: z.array(
      z.object({
        path: z.string(),
        delete: z.literal(true).optional(),
        base_hash: z.string().nullable(),
        current_hash: z.string().nullable().describe('The page now (null: it does not exist)'),
        applies,
        diff: z.string().describe('Unified diff against the page as it is now'),
      }),
    ),
  }),
  rest: { method: 'get', path: '/vault/proposals/:id' },
  mcp: { title: 'Get proposal', annotations: READ_ONLY },
  handler: (ctx, input) => proposals(ctx).get(input.id, ctx.visible),
});

export const approveProposal = defineOp({
  name: 'approve_proposal',
  description:
    "Apply a pending proposal as one commit on main. Fails with CONFLICT (and each conflicting path's current hash) if a page moved under an overlapping edit; the proposal then stays pending.",
  scope: 'write',
  bucket: 'write',
  input: z.object({ id: proposalId }),
  ownerOnly: true,
  rest: { method: 'post', path: '/vault/proposals/:id/approve' },
  mcp: null,
  restOnly: OWNER_ONLY,
  handler: (ctx, input) => proposals(ctx).approve(ctx.author, input.id),
});

export const rejectProposal = defineOp({
  name: 'reject_proposal',
  description: 'Reject a pending proposal; its record is kept.',
  scope: 'write',
  bucket: 'write',
  input: z.object({ id: proposalId, reason: z.string().max(2000).optional() }),
  ownerOnly: true,
  rest: { method: 'post', path: '/vault/proposals/:id/reject' },
  mcp: null,
  restOnly: OWNER_ONLY,
  handler: (ctx, input) => proposals(ctx).reject(ctx.author, input.id, input.reason),
});
