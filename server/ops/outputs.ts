import { z } from 'zod';
import { LINT_RULES } from '../../vault-store/knowledge/lint/finding.js';
import { PROPOSAL_STATUSES } from '../../vault-store/proposals/proposal.js';

/**
 * The pieces of operation results that several operations share. Each operation's `output`
 * (its MCP outputSchema) is built from these beside the operation.
 */

const commitId = z.string().describe('A git commit id');
const blobId = z.string().describe('The git blob id of the page: pass it as base_hash when you edit the page');

/** The commit the search index, graph and page metadata reflect. */
export const indexedCommit = commitId.describe('The commit the index reflects (compare with vault_health for freshness)');

export const pageView = z.object({
  path: z.string(),
  hash: blobId,
  title: z.string(),
  content: z.string().describe('The whole markdown text, front-matter included'),
  frontmatter: z.record(z.string(), z.unknown()),
  frontmatter_error: z.string().optional().describe('Why the front-matter could not be read, when it could not'),
  tags: z.array(z.string()),
  links: z.array(z.string()).describe('Link targets as written in the page'),
  size: z.number().int().describe('Bytes'),
  updated_at: z.string().describe('When the page last changed (ISO 8601)'),
});

export const pageSummary = pageView.pick({ path: true, hash: true, title: true, size: true, tags: true, updated_at: true });

/** A page after a write: the page as written and the commit that wrote it. */
export const pageWrite = pageView.extend({
  commit: commitId.nullable().describe('null when the page already had this content (nothing committed)'),
  created: z.boolean().describe('True when the page did not exist before'),
  merged: z
    .literal(true)
    .optional()
    .describe('Present when base_hash was stale and merge: true merged the edit with the changes made since'),
});

/** A page after a capture: always a new page and a new commit. */
export const pageCapture = pageView.extend({ commit: commitId });

/** A page in a ranked result (search, similar pages). */
export const pageHit = z.object({ path: z.string(), title: z.string(), hash: blobId, score: z.number() });

export const fileInfo = z.object({
  path: z.string(),
  hash: z.string().describe('The git blob id of the file: send it as If-Match (REST) or base_hash to replace exactly this version'),
  size: z.number().int().describe('Bytes'),
  kind: z.enum(['page', 'attachment']).describe('A page (.md) or any other file of the vault'),
});

export const pathChange = z.object({
  path: z.string(),
  op: z.enum(['add', 'modify', 'delete']),
  hash: z.string().nullable().describe('Blob id after the change; null for a delete'),
  kind: fileInfo.shape.kind,
});

export const changeFeed = z.object({
  head: commitId.describe('The head this answer was computed against'),
  cursor: commitId.describe('The last commit covered: pass it as the next since'),
  has_more: z.boolean(),
  changes: z.array(z.object({ commit: commitId, at: z.string(), actor: z.string(), message: z.string(), paths: z.array(pathChange) })),
});

const optionalText = (description: string) => z.string().optional().describe(description);

/** One page of history: a page's commits, or the vault's recent activity (page_history). */
export const historyPage = z.object({
  entries: z.array(
    z.object({
      commit: commitId,
      at: z.string().describe('When (ISO 8601, the author date)'),
      actor: z.string().describe('key:<name>, app:<name>, account:<name>, external, or the git author of an outside commit'),
      message: z.string(),
      author: z.string().describe('The git author name'),
      credential: optionalText('The key id, OAuth grant id or session id that made it'),
      agent: optionalText('The agent that made it'),
      key: optionalText("The API key's name"),
      app: optionalText("The OAuth app's name"),
      app_id: optionalText("The OAuth app's client id"),
      device: optionalText('The device key that made it'),
      changes: z.array(
        z.object({
          path: z.string(),
          kind: z.enum(['created', 'modified', 'renamed', 'deleted']),
          hash: z.string().nullable().describe("The page's hash after the commit; null when deleted"),
          from: optionalText('For renamed: the path before'),
          to: optionalText('For a delete that was a rename: where the page went'),
        }),
      ),
    }),
  ),
  next_cursor: z.string().nullable().describe('Pass as cursor for older entries; null when none remain'),
});

export const lintCounts = z.record(z.enum(LINT_RULES), z.number().int()).describe('Findings per rule, every rule included');

const actor = z.object({ name: z.string(), agent: z.string().optional(), actor: z.string().optional(), credential: z.string().optional() });

export const proposalRecord = z.object({
  id: z.string(),
  title: z.string(),
  rationale: z.string(),
  status: z.enum(PROPOSAL_STATUSES),
  created_at: z.string(),
  created_by: actor,
  base_commit: commitId.describe('HEAD of main when the proposal was made'),
  changes: z.array(
    z.object({
      path: z.string(),
      delete: z.literal(true).optional(),
      hash: z.string().optional().describe('Blob id of the proposed content'),
      base_hash: z.string().nullable().describe('The page version the change is based on (null: the page did not exist)'),
    }),
  ),
  decided_at: z.string().optional(),
  decided_by: actor.optional(),
  reason: z.string().optional(),
  commit: commitId.nullable().optional().describe('The commit that applied it'),
});

/** Whether a proposal (or one change of it) still applies to the pages as they are now. */
export const applies = z.enum(['clean', 'merge', 'conflict']);
