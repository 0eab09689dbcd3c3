import { z } from 'zod';
import { streamChanges } from '../live/change-stream.js';
import { agentAccess } from './agent-gate.js';
import { commitId } from './changes.js';
import { invalidInput } from './invoke.js';
import { defineOp, type AnyOperation } from './operation.js';
import type { RawResult } from './raw-result.js';

/** Commits read per page of the feed while a stream catches up. */
const PAGE = 100;

export const changeEvents = defineOp({
  name: 'change_events',
  description:
    'Server-Sent Events: every commit after `since` (or the Last-Event-ID header, or from now on) with a change you may see, pushed as it lands, as one `change` event each.',
  scope: 'read',
  bucket: 'sync',
  input: z.object({ since: commitId.optional() }),
  rest: { method: 'get', path: '/vault/events' },
  mcp: null,
  restOnly: 'An event stream is no tool result; MCP clients hear of page changes with resources/subscribe.',
  handler: async (ctx, input): Promise<RawResult> => ({
    raw: true,
    send: async (res) => {
      // HEAD (served by GET routes) gets the stream's headers, not a stream that never ends.
      if (res.req.method === 'HEAD') return void res.writeHead(200, { 'Content-Type': 'text/event-stream; charset=utf-8' }).end();
      // An EventSource reconnecting repeats its URL and adds the last id it saw: that one is newer.
      const resumed = res.req.headers['last-event-id'];
      const since = resumed === undefined ? input.since : parsedId(resumed);
      await streamChanges(res, {
        caller: ctx,
        since: since ?? ctx.vault.head,
        timing: { keepAliveMs: ctx.config.live.heartbeatMs, maxMs: ctx.config.live.maxStreamMs },
        // An agent's folders are read again for each page: they may change while the stream lives.
        read: async (after) => {
          const { visible } = await agentAccess(ctx.services.agents, changeEvents as unknown as AnyOperation, ctx.credential, {});
          return ctx.vault.changesSince({ since: after, limit: PAGE, visible });
        },
      });
    },
  }),
});

function parsedId(header: string | string[]): string {
  const parsed = z.object({ 'Last-Event-ID': commitId }).safeParse({ 'Last-Event-ID': header });
  if (!parsed.success) throw invalidInput(parsed.error);
  return parsed.data['Last-Event-ID'];
}
