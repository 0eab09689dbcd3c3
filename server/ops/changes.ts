import { z } from 'zod';
import { QuireError } from '../../vault-store/errors.js';
import { MAX_WAIT_SECONDS, waitForChanges } from '../live/wait-for-changes.js';
import { defineOp } from './operation.js';
import { changeFeed } from './outputs.js';
import { limit } from './schemas.js';

export const commitId = z.string().regex(/^[0-9a-f]{40}$/, 'must be a 40-character commit id');

export const recentChanges = defineOp({
  name: 'recent_changes',
  description:
    'The change log: commits after `since` (oldest first, each with actor, message and the pages added, modified or deleted). Pass the returned cursor as the next since. Without since, a device continues from its last acknowledged cursor; otherwise you get a snapshot of every current page. With `wait`, an empty answer is held until a change comes or `wait` seconds pass.',
  scope: 'read',
  bucket: 'sync',
  input: z.object({
    since: commitId.optional(),
    limit: limit(1000, 100),
    wait: z.coerce
      .number()
      .int()
      .min(0)
      .max(MAX_WAIT_SECONDS)
      .optional()
      .describe(
        `Long-poll: when nothing changed after since, answer as soon as something does, or after this many seconds (at most ${MAX_WAIT_SECONDS}) with no changes`,
      ),
  }),
  output: changeFeed,
  rest: { method: 'get', path: '/vault/changes' },
  mcp: { title: 'Recent changes', annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true } },
  handler: async (ctx, input) => {
    const { vault } = ctx;
    const since = input.since ?? (ctx.credential.device ? (await ctx.services.usage.get(ctx.credential.id)).cursor : undefined);
    if (since === undefined) return vault.snapshot({ visible: ctx.visible });
    const read = () => vault.changesSince({ since, limit: input.limit, visible: ctx.visible });
    return input.wait ? waitForChanges(ctx, input.wait * 1000, read) : read();
  },
});

export const ackChanges = defineOp({
  name: 'ack_changes',
  description: 'A device acknowledges that it has applied the change log up to `cursor`.',
  scope: 'read',
  bucket: 'sync',
  input: z.object({ cursor: commitId }),
  rest: { method: 'post', path: '/vault/changes/ack' },
  mcp: null,
  restOnly: "Acknowledgements move a device key's sync cursor; MCP clients are not devices.",
  handler: async (ctx, input) => {
    if (!ctx.credential.device || ctx.credential.kind !== 'api_key') {
      throw new QuireError('DEVICE_ONLY', 'Only device keys (quire key create … --device) acknowledge change-log cursors');
    }
    const { vault } = ctx;
    if (!(await vault.isCommitInHistory(input.cursor))) {
      throw new QuireError('INVALID_CURSOR', `${input.cursor} is not a commit of this vault's history`, { cursor: input.cursor });
    }
    const previous = (await ctx.services.usage.get(ctx.credential.id)).cursor;
    // A previous cursor the history no longer holds (rewritten: the device was told 410 and
    // took a snapshot) is no measure of "backwards"; refusing would pin the device forever.
    if (
      previous &&
      previous !== input.cursor &&
      (await vault.isCommitInHistory(previous)) &&
      !(await vault.isAncestor(previous, input.cursor))
    ) {
      throw new QuireError('CURSOR_REGRESSION', `The device already acknowledged ${previous}, which is newer`, {
        current_cursor: previous,
      });
    }
    const usage = await ctx.services.usage.setCursor(ctx.credential.id, input.cursor);
    return { cursor: usage.cursor, acknowledged_at: usage.cursor_at };
  },
});
