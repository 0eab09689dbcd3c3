import { z } from 'zod';
import { buildContextPack } from '../../vault-store/context/context-pack.js';
import { buildGuide, GUIDE_PATH, guideSummary } from '../../vault-store/context/guide.js';
import { knowledgeSource } from '../../vault-store/context/knowledge-source.js';
import { normalizePagePath } from '../../vault-store/paths.js';
import { defineOp, type OpContext } from './operation.js';
import { pageView } from './outputs.js';

const READ_ONLY = { readOnlyHint: true, destructiveHint: false, idempotentHint: true } as const;
const decoder = new TextDecoder();

async function guideText(ctx: OpContext): Promise<string | undefined> {
  if (!ctx.visible(GUIDE_PATH)) return undefined;
  const file = await ctx.vault.readFile(GUIDE_PATH);
  return file && decoder.decode(file.content);
}

function visiblePages(ctx: OpContext): string[] {
  return ctx.vault.pagePaths().filter(ctx.visible);
}

function callerLines(ctx: OpContext): string[] {
  const scopes = [...ctx.credential.capabilities].sort().join(', ');
  const lines = [
    `- Signed in as \`${ctx.user}\` with ${ctx.credential.kind === 'oauth' ? 'the app' : 'the key'} "${ctx.credential.label}"; scopes: ${scopes}.`,
  ];
  const { agent } = ctx;
  if (!agent) return [...lines, '- You act as the vault owner: every folder is readable and writable within your scopes.'];
  const folders = (list: string[]) => (list.length ? list.map((p) => (p ? `\`${p}\`` : 'the whole vault')).join(', ') : 'nothing');
  return [
    ...lines,
    `- You act as agent \`${agent.name}\` in \`${agent.mode}\` mode${agent.description ? ` (${agent.description})` : ''}.`,
    `- You can read ${folders(agent.read)}; other pages do not exist for you.`,
    agent.mode === 'read'
      ? '- You cannot change anything.'
      : `- You can ${agent.mode === 'write' ? 'write' : 'propose changes to'} ${folders(agent.write)}.`,
  ];
}

export const guide = defineOp({
  name: 'guide',
  description:
    "Read this first: how this vault is organised (the owner's GUIDE.md, folders, tags, conventions such as the capture/ inbox), what you may read and write, and how to use the tools well.",
  scope: 'read',
  bucket: 'read',
  input: z.object({}),
  output: z.object({ guide: z.string().describe('Markdown') }),
  rest: { method: 'get', path: '/vault/guide' },
  mcp: { title: 'Vault guide', annotations: READ_ONLY },
  handler: async (ctx) => {
    const { metas } = ctx.vault.knowledge;
    const mirrors = (await ctx.services.agents.list(ctx.user))
      .filter((a) => a.mode === 'write' && !a.write.includes(''))
      .flatMap((a) => a.write.filter(ctx.visible).map((prefix) => ({ prefix, agent: a.name })));
    return {
      guide: buildGuide({
        guideText: await guideText(ctx),
        pages: visiblePages(ctx),
        tagsOf: (path) => metas.get(path)?.tags ?? [],
        mirrors,
        caller: callerLines(ctx),
        proposeOnly: ctx.agent?.mode === 'propose',
      }),
    };
  },
});

export const contextPack = defineOp({
  name: 'context_pack',
  description:
    "A markdown bundle of what the vault knows about a topic, within a token budget: the guide's summary, then the most relevant pages (whole or excerpted) with their linked pages' titles. Each page is labelled with its path and hash: pass that hash as base_hash when you edit it.",
  scope: 'read',
  bucket: 'read',
  input: z.object({
    topic: z.string().min(1).max(500),
    max_tokens: z.coerce
      .number()
      .int()
      .min(200)
      .max(100_000)
      .default(4000)
      .describe('Budget for the whole pack (estimated: 4 ASCII characters or 1 other character per token)'),
    paths: z.array(z.string().max(4096)).max(20).optional().describe('Pages to include first, before the most relevant ones'),
  }),
  output: z.object({
    pack: z.string().describe('The markdown bundle'),
    pages: z.array(
      z.object({
        path: z.string(),
        hash: pageView.shape.hash,
        title: z.string(),
        tokens: z.number().int(),
        excerpt: z.boolean().describe('True when only part of the page fit'),
      }),
    ),
    tokens: z.number().int().describe('Estimated tokens of the whole pack'),
  }),
  rest: { method: 'post', path: '/vault/context' },
  mcp: { title: 'Context pack', annotations: READ_ONLY },
  handler: async (ctx, input) => {
    const summary = guideSummary({ guideText: await guideText(ctx), pages: visiblePages(ctx) });
    const source = knowledgeSource(ctx.vault.pages, ctx.vault.knowledge, ctx.visible, summary);
    return buildContextPack(source, { topic: input.topic, maxTokens: input.max_tokens, paths: input.paths?.map(normalizePagePath) });
  },
});
