import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  ErrorCode,
  GetPromptRequestSchema,
  ListPromptsRequestSchema,
  McpError,
  type GetPromptResult,
  type Prompt,
  type PromptMessage,
} from '@modelcontextprotocol/sdk/types.js';
import type { QuireError } from '../../vault-store/errors.js';
import type { PageSummary, PageView } from '../../vault-store/page-view.js';
import { callOp } from './call-op.js';
import type { McpContext } from './context.js';
import { changeList, pagesUpdatedSince, parseSince } from './prompt-changes.js';
import { pageUri } from './resources.js';

/** An embedded page is cut at this many characters (the prompt says so). */
const MAX_PAGE_CHARS = 20_000;
const MAX_CANDIDATES = 30;
const DAY_MS = 86_400_000;

/** What an argument completes to (see completions.ts). */
export type ArgumentKind = 'page' | 'since';

interface QuirePrompt extends Prompt {
  arguments: { name: string; description: string; required?: boolean; kind: ArgumentKind }[];
  messages: (ctx: McpContext, args: Record<string, string>) => Promise<PromptMessage[]>;
}

/** The first `max` UTF-16 units of `text`, never ending on half of a surrogate pair. */
function cut(text: string, max: number): string {
  if (text.length <= max) return text;
  const code = text.charCodeAt(max - 1);
  return text.slice(0, code >= 0xd800 && code <= 0xdbff ? max - 1 : max);
}

const user = (text: string): PromptMessage => ({ role: 'user', content: { type: 'text', text } });

/** A page named by a prompt argument that does not exist (or is hidden) is a bad argument. */
const badPage = (error: QuireError) => new McpError(ErrorCode.InvalidParams, `path: ${error.message}`, error.toJSON());

async function relatedNotes(ctx: McpContext, args: Record<string, string>): Promise<PromptMessage[]> {
  const page = await callOp<PageView>(ctx, 'read_page', { path: args.path }, badPage);
  const [similar, linking] = await Promise.all([
    callOp<{ results: { path: string; title: string }[] }>(ctx, 'similar_pages', { path: page.path, limit: 20 }),
    callOp<{ backlinks: { path: string; title: string }[] }>(ctx, 'backlinks', { path: page.path }),
  ]);
  const list = (rows: { path: string; title: string }[]) =>
    rows.length
      ? rows
          .slice(0, MAX_CANDIDATES)
          .map((r) => `- ${r.path} "${r.title}"`)
          .join('\n')
      : '(none)';
  return [
    {
      role: 'user',
      content: {
        type: 'resource',
        resource: { uri: pageUri(page.path), mimeType: 'text/markdown', text: cut(page.content, MAX_PAGE_CHARS) },
      },
    },
    user(
      `Find the notes related to the page "${page.title}" (${page.path}) above${page.content.length > MAX_PAGE_CHARS ? ` (cut to its first ${MAX_PAGE_CHARS} characters)` : ''}.\n\n` +
        `Pages similar to it:\n${list(similar.results)}\n\nPages already linking to it:\n${list(linking.backlinks)}\n\n` +
        'Read the promising candidates, then say which are really related and why, and which links ([[wiki links]]) the page should gain. Do not edit anything unless asked.',
    ),
  ];
}

async function weeklyReview(ctx: McpContext): Promise<PromptMessage[]> {
  const since = new Date(Date.now() - 7 * DAY_MS);
  const [updated, todos, inbox] = await Promise.all([
    pagesUpdatedSince(ctx, since),
    callOp<{ results: { path: string; title: string; snippet: string }[] }>(ctx, 'search', { q: 'TODO', limit: 10 }),
    callOp<{ pages: PageSummary[] }>(ctx, 'list_pages', { prefix: 'capture', limit: 20 }),
  ]);
  const lines = (rows: string[]) => (rows.length ? rows.join('\n') : '(none)');
  return [
    user(
      `A weekly review of my vault. Pages updated in the last 7 days (since ${since.toISOString()}):\n${updated}\n\n` +
        `Open loops, pages mentioning TODO (the 10 best matches):\n${lines(todos.results.map((r) => `- ${r.path} "${r.title}": ${r.snippet}`))}\n\n` +
        `Unfiled captures in capture/ (at most 20):\n${lines(inbox.pages.map((p) => `- ${p.path} "${p.title}"`))}\n\n` +
        'Read what you need, then give me: what moved forward this week, the open loops worth closing, captures to file or drop, and three priorities for next week.',
    ),
  ];
}

async function summariseChanges(ctx: McpContext, args: Record<string, string>): Promise<PromptMessage[]> {
  const { heading, body } = await changeList(ctx, parseSince(args.since));
  return [
    user(
      `Summarise what changed in my vault. ${heading}:\n${body}\n\n` +
        'Read the pages that matter (read_page), group the changes by theme, and say what is new, what was revised and what was removed, in a few short paragraphs.',
    ),
  ];
}

export const PROMPTS: QuirePrompt[] = [
  {
    name: 'summarise_changes',
    title: 'Summarise changes',
    description: 'Summarise what changed in the vault since a date or a commit.',
    arguments: [
      {
        name: 'since',
        description: 'A commit id (changes after it), a date such as 2026-11-01 (pages updated since), or "7 days ago"',
        required: true,
        kind: 'since',
      },
    ],
    messages: summariseChanges,
  },
  {
    name: 'weekly_review',
    title: 'Weekly review',
    description: "Review the week: pages updated in the last 7 days, open TODOs and unfiled captures, and next week's priorities.",
    arguments: [],
    messages: weeklyReview,
  },
  {
    name: 'related_notes',
    title: 'Find related notes',
    description: 'Find the notes related to a page (similar pages and backlinks) and the links it should gain.',
    arguments: [{ name: 'path', description: 'The page, e.g. projects/plan.md', required: true, kind: 'page' }],
    messages: relatedNotes,
  },
];

export function promptNamed(name: string): QuirePrompt {
  const prompt = PROMPTS.find((p) => p.name === name);
  if (!prompt) throw new McpError(ErrorCode.InvalidParams, `Unknown prompt: ${name}`, { name });
  return prompt;
}

/** `prompts/list` and `prompts/get`: messages built from real operation results, bounded in size. */
export function registerPrompts(server: Server, ctx: McpContext): void {
  server.registerCapabilities({ prompts: {} });
  server.setRequestHandler(ListPromptsRequestSchema, () => ({
    prompts: PROMPTS.map(({ name, title, description, arguments: args }) => ({
      name,
      title,
      description,
      arguments: args.map(({ name: arg, description: about, required }) => ({
        name: arg,
        description: about,
        required: required ?? false,
      })),
    })),
  }));
  server.setRequestHandler(GetPromptRequestSchema, async (request): Promise<GetPromptResult> => {
    const prompt = promptNamed(request.params.name);
    const args = request.params.arguments ?? {};
    const missing = prompt.arguments.find((a) => a.required && !args[a.name]?.trim());
    if (missing) throw new McpError(ErrorCode.InvalidParams, `Missing required argument: ${missing.name}`, { argument: missing.name });
    return { description: prompt.description, messages: await prompt.messages(ctx, args) };
  });
}
