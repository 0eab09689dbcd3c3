import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CompleteRequestSchema, ErrorCode, McpError, type CompleteResult } from '@modelcontextprotocol/sdk/types.js';
import type { PageSummary } from '../../vault-store/page-view.js';
import { callOp } from './call-op.js';
import type { McpContext } from './context.js';
import { SINCE_CHOICES } from './prompt-changes.js';
import { promptNamed, type ArgumentKind } from './prompts.js';
import { PAGE_TEMPLATE } from './resources.js';

/** The spec's cap on completion values. */
const MAX_VALUES = 100;
/** Pages listed per call, and calls at most, while looking for matches in one folder. */
const LIST_LIMIT = 1000;
const LIST_CALLS = 5;

type Completion = CompleteResult['completion'];

function complete(values: string[], exhaustive: boolean): Completion {
  return {
    values: values.slice(0, MAX_VALUES),
    ...(exhaustive ? { total: values.length } : {}),
    hasMore: !exhaustive || values.length > MAX_VALUES,
  };
}

/**
 * Page paths starting with what was typed (ignoring case), from `list_pages` over the folder
 * typed so far, so only pages the caller may read are offered. A folder the page-path rules
 * refuse completes to nothing.
 */
async function pagePaths(ctx: McpContext, typed: string): Promise<Completion> {
  const folder = typed.slice(0, typed.lastIndexOf('/') + 1);
  const needle = typed.toLowerCase();
  const matches: string[] = [];
  let cursor: string | undefined;
  try {
    for (let call = 0; call < LIST_CALLS; call++) {
      const listed = await callOp<{ pages: PageSummary[]; next_cursor: string | null }>(ctx, 'list_pages', {
        limit: LIST_LIMIT,
        ...(folder ? { prefix: folder } : {}),
        ...(cursor ? { cursor } : {}),
      });
      matches.push(...listed.pages.map((p) => p.path).filter((p) => p.toLowerCase().startsWith(needle)));
      cursor = listed.next_cursor ?? undefined;
      if (!cursor || matches.length > MAX_VALUES) break;
    }
  } catch (err) {
    if (err instanceof McpError && err.code === ErrorCode.InvalidParams) return complete([], true);
    throw err;
  }
  return complete(matches, cursor === undefined);
}

const BY_KIND: Record<ArgumentKind, (ctx: McpContext, typed: string) => Promise<Completion>> = {
  page: pagePaths,
  since: async (_ctx, typed) =>
    complete(
      SINCE_CHOICES.filter((v) => v.startsWith(typed.toLowerCase())),
      true,
    ),
};

/**
 * `completion/complete`: page paths for the page template's `path` and for prompt
 * arguments naming a page, and the usual choices for `since`. Anything else completes to
 * nothing rather than failing, as a client asks while the user types.
 */
export function registerCompletions(server: Server, ctx: McpContext): void {
  server.registerCapabilities({ completions: {} });
  server.setRequestHandler(CompleteRequestSchema, async (request) => {
    const { ref, argument } = request.params;
    if (ref.type === 'ref/resource') {
      const isPath = ref.uri === PAGE_TEMPLATE && argument.name === 'path';
      return { completion: isPath ? await pagePaths(ctx, argument.value) : complete([], true) };
    }
    const kind = promptNamed(ref.name).arguments.find((a) => a.name === argument.name)?.kind;
    return { completion: kind ? await BY_KIND[kind](ctx, argument.value) : complete([], true) };
  });
}
