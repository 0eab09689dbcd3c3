import { z } from 'zod';
import { defineOp } from './operation.js';
import type { RawResult } from './raw-result.js';

export const exportVault = defineOp({
  name: 'export',
  description: 'Download the whole vault (every file of the current commit, pages and attachments) as a zip.',
  scope: 'read',
  bucket: 'expensive',
  wholeVault: true,
  input: z.object({}),
  rest: { method: 'get', path: '/vault/export' },
  mcp: null,
  restOnly: 'A zip archive is a binary download, not a tool result; MCP clients read pages instead.',
  handler: async (ctx): Promise<RawResult> => ({
    raw: true,
    send: async (res) => {
      // Fixed before the first byte: the archive is this commit, whatever lands meanwhile.
      const commit = ctx.vault.head;
      res.setHeader('Content-Type', 'application/zip');
      res.setHeader('Content-Disposition', `attachment; filename="vault-${ctx.user}-${commit.slice(0, 7)}.zip"`);
      res.setHeader('X-Quire-Commit', commit);
      const abort = new AbortController();
      res.on('close', () => abort.abort());
      try {
        await ctx.vault.export({ commit, signal: abort.signal }, res);
      } catch (err) {
        // The client went away: nothing to answer. Anything else after headers: cut the stream.
        if (abort.signal.aborted) return;
        if (res.headersSent) {
          res.destroy(err as Error);
          return;
        }
        throw err;
      }
    },
  }),
});
