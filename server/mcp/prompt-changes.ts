import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import type { PageSummary } from '../../vault-store/page-view.js';
import type { Workspace } from '../../vault-store/workspace.js';
import { callOp } from './call-op.js';
import type { McpContext } from './context.js';

/** At most this many lines of a change list go into a prompt; the rest are counted. */
export const MAX_LINES = 200;
/** A walk of the page list stops after this many pages (5 calls of 1000). */
const LIST_LIMIT = 1000;
const LIST_CALLS = 5;
const DAY_MS = 86_400_000;

type ChangeFeed = Awaited<ReturnType<Workspace['changesSince']>>;

/** What `since` completes to; any ISO date or commit id is accepted as well. */
export const SINCE_CHOICES = ['1 day ago', '7 days ago', '30 days ago'];

export type Since = { commit: string } | { date: Date };

/** A commit id, a date (`2026-11-01`, or ISO 8601 with a time), or `N days ago` / `N weeks ago`. */
export function parseSince(raw: string, now = new Date()): Since {
  const text = raw.trim();
  if (/^[0-9a-f]{40}$/.test(text)) return { commit: text };
  const relative = /^(\d{1,4}) (day|week)s? ago$/i.exec(text);
  if (relative) return { date: new Date(now.getTime() - Number(relative[1]) * (relative[2].toLowerCase() === 'week' ? 7 : 1) * DAY_MS) };
  const date = /^\d{4}-\d{2}-\d{2}/.test(text) ? new Date(text) : undefined;
  if (date && !Number.isNaN(date.getTime())) return { date };
  throw new McpError(ErrorCode.InvalidParams, 'since: give a commit id, a date such as 2026-11-01, or "7 days ago"', { argument: 'since' });
}

function capped(lines: string[], what: string): string {
  if (!lines.length) return `(no ${what})`;
  const shown = lines.slice(0, MAX_LINES).join('\n');
  return lines.length > MAX_LINES
    ? `${shown}\n(${lines.length - MAX_LINES} more ${what} not shown: the list is capped at ${MAX_LINES})`
    : shown;
}

/** The commit log after `commit` from `recent_changes`, one line per commit. */
async function commitLog(ctx: McpContext, commit: string): Promise<string> {
  const feed = await callOp<ChangeFeed>(ctx, 'recent_changes', { since: commit, limit: MAX_LINES });
  const lines = feed.changes.map((c) => `- ${c.at} ${c.actor}: ${c.message} (${c.paths.map((p) => `${p.op} ${p.path}`).join(', ')})`);
  const text = capped(lines, 'changes');
  return feed.has_more ? `${text}\n(later commits not shown: the list is capped at ${MAX_LINES} commits)` : text;
}

/**
 * The pages updated at or after `date`, newest first, from the page list's `updated_at`
 * (the change feed pages by commit, not by date). A page deleted since is not listed.
 */
export async function pagesUpdatedSince(ctx: McpContext, date: Date): Promise<string> {
  const found: PageSummary[] = [];
  let cursor: string | undefined;
  let walked = 0;
  for (let call = 0; call < LIST_CALLS; call++) {
    const listed = await callOp<{ pages: PageSummary[]; next_cursor: string | null }>(ctx, 'list_pages', {
      limit: LIST_LIMIT,
      ...(cursor ? { cursor } : {}),
    });
    walked += listed.pages.length;
    found.push(...listed.pages.filter((p) => new Date(p.updated_at) >= date));
    cursor = listed.next_cursor ?? undefined;
    if (!cursor) break;
  }
  found.sort((a, b) => (a.updated_at < b.updated_at ? 1 : -1));
  const text = capped(
    found.map((p) => `- ${p.path} "${p.title}" (updated ${p.updated_at})`),
    'pages',
  );
  return cursor ? `${text}\n(only the first ${walked} pages by path were checked)` : text;
}

/** The change list for `since`: the commit log after a commit, or the pages updated since a date. */
export async function changeList(ctx: McpContext, since: Since): Promise<{ heading: string; body: string }> {
  if ('commit' in since) return { heading: `Commits after ${since.commit}`, body: await commitLog(ctx, since.commit) };
  return { heading: `Pages updated since ${since.date.toISOString()}`, body: await pagesUpdatedSince(ctx, since.date) };
}
