import { z } from 'zod';
import { QuireError } from '../../vault-store/errors.js';
import type { RevertTarget } from '../../vault-store/revert/revert.js';
import { withinPrefixes } from './agent-gate.js';
import { defineOp, type OpContext } from './operation.js';

const name = z.string().min(1).max(200);
const date = z.string().max(64).describe('ISO 8601 date or date-time, e.g. 2026-11-26T09:00:00Z');
const commitId = z.string().describe('A git commit id');

/** An ISO 8601 date as given; anything else is refused rather than guessed at. */
function parseDate(field: string, value: string): Date {
  const at = /^\d{4}-\d{2}-\d{2}([T ][\d:.]+(Z|[+-]\d{2}:?\d{2})?)?$/.test(value) ? new Date(value) : new Date(NaN);
  if (Number.isNaN(at.getTime())) throw new QuireError('INVALID_REQUEST', `${field} is not an ISO 8601 date: ${value}`, { field });
  return at;
}

type Input = { agent?: string; key?: string; app?: string; since?: string; until?: string; commit?: string };

/** `{commit}` alone, or exactly one of agent/key/app with since (and until). */
function targetOf(input: Input): RevertTarget {
  const who = (['agent', 'key', 'app'] as const).filter((k) => input[k] !== undefined);
  if (input.commit !== undefined) {
    if (who.length || input.since !== undefined || input.until !== undefined)
      throw new QuireError('INVALID_REQUEST', 'give either commit alone, or one of agent, key, app with since', { field: 'commit' });
    return { commit: input.commit };
  }
  if (who.length !== 1) throw new QuireError('INVALID_REQUEST', 'give exactly one of agent, key, app (or a commit)', { field: 'agent' });
  if (input.since === undefined)
    throw new QuireError('INVALID_REQUEST', 'since is required: the start of the window to undo', { field: 'since' });
  const since = parseDate('since', input.since);
  const until = input.until === undefined ? undefined : parseDate('until', input.until);
  if (until && until < since) throw new QuireError('INVALID_REQUEST', 'until is before since', { field: 'until' });
  const by = { [who[0]]: input[who[0]]! } as { agent: string } | { key: string } | { app: string };
  return { by, since, until };
}

/** REST applies unless dry_run; MCP only plans unless confirm: an assistant must ask first. */
function dryRun(ctx: OpContext, input: { dry_run?: boolean; confirm?: boolean }): boolean {
  return input.dry_run === true || (ctx.surface === 'mcp' && input.confirm !== true);
}

const pathHash = z.object({ path: z.string(), hash: z.string().describe('Blob id of the page after the revert') });

export const revertChanges = defineOp({
  name: 'revert_changes',
  description:
    'Undo everything one agent, API key or connected app changed since a time (or one commit), page by page and three-way, so later edits by others are kept. Over MCP this only returns the plan (pages reverted, deleted, recreated, and skipped with the diff that conflicts) unless confirm: true; show the plan to the user before confirming. Applying makes one commit.',
  scope: 'write',
  bucket: 'write',
  input: z.object({
    agent: name.optional().describe('Undo what this agent changed'),
    key: name.optional().describe("Undo what this API key changed: the key's name or id"),
    app: name.optional().describe("Undo what this connected app changed: the app's name or its grant id"),
    since: date.optional().describe('Start of the window (commit dates), required with agent, key or app'),
    until: date.optional().describe('End of the window; omitted, up to now'),
    commit: z
      .string()
      .regex(/^[0-9a-f]{40}$/, 'must be a full 40-character commit id')
      .optional()
      .describe('Undo this one commit instead'),
    dry_run: z.boolean().optional().describe('Only return the plan (REST applies unless dry_run: true)'),
    confirm: z.boolean().optional().describe('MCP: apply the plan (without it, revert_changes only returns the plan)'),
  }),
  output: z.object({
    dry_run: z.boolean().describe('True when nothing was written: this is the plan'),
    commits: z.array(commitId).describe('The commits undone, newest first'),
    commit: commitId.nullable().describe('The one commit that undid them; null for a dry run or when nothing needed undoing'),
    reverted: z.array(pathHash).describe('Pages changed back'),
    deleted: z.array(z.object({ path: z.string() })).describe('Pages it created, deleted again'),
    recreated: z.array(pathHash).describe('Pages it deleted, written back'),
    skipped: z
      .array(
        z.object({
          path: z.string(),
          reason: z
            .enum(['conflict', 'deleted_since', 'exists_since', 'outside_write_paths'])
            .describe(
              'conflict: changed since in the same lines; deleted_since / exists_since: deleted or recreated since; outside_write_paths: an agent may not write it',
            ),
          current_hash: z.string().nullable(),
          diff: z.string().describe('The change left in place, as a unified diff'),
        }),
      )
      .describe('Pages left as they are'),
  }),
  rest: { method: 'post', path: '/vault/revert' },
  mcp: { title: 'Revert changes', annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true } },
  handler: async (ctx, input) => {
    const target = targetOf(input);
    const agent = ctx.agent;
    const writable = agent ? (path: string) => withinPrefixes(path, agent.write) && withinPrefixes(path, agent.read) : undefined;
    return ctx.vault.revert(ctx.author, { target, dryRun: dryRun(ctx, input), visible: agent ? ctx.visible : undefined, writable });
  },
});
