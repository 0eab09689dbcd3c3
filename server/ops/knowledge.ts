import { z } from 'zod';
import { backlinksView, graphView, MAX_GRAPH_DEPTH } from '../../vault-store/knowledge/graph/graph-view.js';
import { lint } from '../../vault-store/knowledge/lint/lint.js';
import { stats } from '../../vault-store/knowledge/stats.js';
import { isPagePath, normalizePrefix, normalizeVaultFilePath } from '../../vault-store/paths.js';
import { seesWholeVault } from './agent-gate.js';
import { defineOp, type OpContext } from './operation.js';
import { visiblePath } from './pages.js';
import { indexedCommit, lintCounts, pageHit } from './outputs.js';
import { folderPrefix, limit, pagePath } from './schemas.js';

const READ_ONLY = { readOnlyHint: true, destructiveHint: false, idempotentHint: true } as const;

const pageOrFilePath = pagePath.describe(
  'Vault-relative page path (".md" may be omitted), or an attachment\'s path, e.g. "img/diagram.png"',
);

/**
 * A node of the graph the caller may see: the attachment `raw` names when the vault has one
 * there the caller may see, else a page by the page rules; so a hidden attachment is refused
 * exactly as a missing one.
 */
function visibleNode(ctx: OpContext, raw: string): string {
  const file = raw.normalize('NFC');
  return !isPagePath(file) && ctx.vault.hasFile(file) && ctx.visible(file) ? normalizeVaultFilePath(file) : visiblePath(ctx, raw);
}

type LintReport = ReturnType<typeof lint> & { indexed_commit: string };

/** The last whole-vault report per loaded vault, with the commits it is of. */
const lastReports = new WeakMap<object, { key: string; report: LintReport }>();

/**
 * The lint report the caller may see. The whole vault's is kept until the next commit:
 * `vault_health` runs it, monitors poll that, and a vault's first report after a reopen builds
 * its link graph (at 2k pages a health was a third of a busy server's CPU in `scale-users`).
 */
export function lintReport(ctx: OpContext): LintReport {
  const { knowledge } = ctx.vault;
  const whole = seesWholeVault(ctx.agent);
  const key = `${knowledge.indexedCommit} ${ctx.vault.head} ${ctx.config.maxPageBytes}`;
  const last = whole ? lastReports.get(knowledge) : undefined;
  if (last?.key === key) return last.report;
  const report = {
    ...lint(knowledge.metas, knowledge.graph, {
      maxPageBytes: ctx.config.maxPageBytes,
      visible: ctx.visible,
      attachments: ctx.vault.attachmentPaths(),
    }),
    indexed_commit: knowledge.indexedCommit,
  };
  if (whole) lastReports.set(knowledge, { key, report });
  return report;
}

export const search = defineOp({
  name: 'search',
  description:
    'Full-text search over page titles, bodies, tags and paths, best first, with snippets (matches in **bold**). Supports "exact phrases", prefix* terms, and suggests spellings for unknown words. Filter by folder (prefix) or tag.',
  scope: 'read',
  bucket: 'read',
  input: z.object({
    q: z.string().min(1).max(500).describe('The query'),
    limit: limit(100, 10),
    prefix: folderPrefix,
    tag: z.string().max(200).optional().describe('Only pages with this tag (without "#"; nested tags match)'),
  }),
  output: z.object({
    query: z.string(),
    results: z.array(pageHit.extend({ snippet: z.string().describe('Excerpt with the matched words in **bold**') })),
    suggestion: z.string().optional().describe('The query with unknown words replaced by the closest vault terms'),
    indexed_commit: indexedCommit,
  }),
  rest: { method: 'get', path: '/vault/search' },
  mcp: { title: 'Search the vault', annotations: READ_ONLY },
  handler: async (ctx, input) =>
    ctx.vault.knowledge.search(input.q, {
      limit: input.limit,
      prefix: input.prefix ? normalizePrefix(input.prefix) : undefined,
      tag: input.tag?.replace(/^#/, ''),
      // None for who reads everything: it only said yes, after each word, completion and typo fix went through it.
      visible: seesWholeVault(ctx.agent) ? undefined : ctx.visible,
    }),
});

export const graph = defineOp({
  name: 'graph',
  description:
    'The link graph: pages and the attachments they embed or link as nodes (kind, in/out link counts), links as edges, and unresolved links to pages. Give path (and depth) for the neighbourhood of one page or attachment.',
  scope: 'read',
  bucket: 'read',
  input: z.object({ path: pageOrFilePath.optional(), depth: z.coerce.number().int().min(0).max(MAX_GRAPH_DEPTH).optional() }),
  output: z.object({
    nodes: z.array(
      z.object({
        path: z.string(),
        title: z.string().describe("A page's title; an attachment's file name"),
        tags: z.array(z.string()),
        kind: z.enum(['page', 'attachment']),
        in: z.number().int().describe('Pages linking to this page or attachment'),
        out: z.number().int().describe('Pages and attachments this page links to'),
      }),
    ),
    edges: z.array(z.object({ source: z.string(), target: z.string(), kind: z.enum(['wiki', 'markdown']) })),
    unresolved: z.array(z.object({ source: z.string(), target: z.string().describe('The link as written') })),
  }),
  rest: { method: 'get', path: '/vault/graph' },
  mcp: { title: 'Link graph', annotations: READ_ONLY },
  handler: async (ctx, input) => {
    const { knowledge } = ctx.vault;
    const path = input.path === undefined ? undefined : visibleNode(ctx, input.path);
    const attachments = ctx.vault.attachmentPaths();
    return graphView(knowledge.metas, knowledge.graph, { path, depth: input.depth, visible: ctx.visible, attachments });
  },
});

export const backlinks = defineOp({
  name: 'backlinks',
  description: 'Pages that link to the given page, or that embed or link to the given attachment.',
  scope: 'read',
  bucket: 'read',
  input: z.object({ path: pageOrFilePath }),
  output: z.object({ path: z.string(), backlinks: z.array(z.object({ path: z.string(), title: z.string() })) }),
  rest: { method: 'get', path: '/vault/backlinks/*path' },
  mcp: { title: 'Backlinks', annotations: READ_ONLY },
  handler: async (ctx, input) => {
    const { knowledge } = ctx.vault;
    const path = visibleNode(ctx, input.path);
    return backlinksView(knowledge.metas, knowledge.graph, path, ctx.visible, ctx.vault.attachmentPaths());
  },
});

export const lintOp = defineOp({
  name: 'lint',
  description:
    'Check the vault for problems: broken links, orphan pages, empty pages, duplicate titles, invalid frontmatter, case-only path collisions and oversize pages.',
  scope: 'read',
  bucket: 'read',
  input: z.object({}),
  output: z.object({
    findings: z.array(
      z.object({
        rule: lintCounts.keyType,
        path: z.string(),
        message: z.string(),
        line: z.number().int().optional().describe('1-based line, where the finding has one'),
      }),
    ),
    counts: lintCounts,
    indexed_commit: indexedCommit,
  }),
  rest: { method: 'get', path: '/vault/lint' },
  mcp: { title: 'Lint the vault', annotations: READ_ONLY },
  handler: async (ctx) => lintReport(ctx),
});

export const statsOp = defineOp({
  name: 'vault_stats',
  description:
    'Vault statistics: pages, words, links, unresolved links, tags with counts, pages per top folder, commits and size on disk (commits and size only for callers that read the whole vault).',
  scope: 'read',
  bucket: 'read',
  input: z.object({}),
  output: z.object({
    pages: z.number().int(),
    words: z.number().int(),
    links: z.number().int().describe('Links to pages as written (twice counts twice)'),
    unresolved_links: z.number().int(),
    tags: z.array(z.object({ tag: z.string(), count: z.number().int() })).describe('Most used first'),
    folders: z.array(z.object({ folder: z.string(), pages: z.number().int() })).describe('Pages per top-level folder ("" is the root)'),
    commits: z.number().int().optional().describe('Only for callers that read the whole vault'),
    disk_bytes: z.number().int().optional().describe('Only for callers that read the whole vault'),
    indexed_commit: indexedCommit,
  }),
  rest: { method: 'get', path: '/vault/stats' },
  mcp: { title: 'Vault statistics', annotations: READ_ONLY },
  handler: async (ctx) => {
    const { vault } = ctx;
    const { knowledge } = vault;
    // Commits and disk use measure every folder: a caller limited to some has no business with them.
    const whole = seesWholeVault(ctx.agent) ? await Promise.all([vault.commitCount(), vault.diskBytes()]) : undefined;
    const figures = whole ? { commits: whole[0], diskBytes: whole[1] } : {};
    return { ...stats(knowledge.metas, knowledge.graph, { ...figures, visible: ctx.visible }), indexed_commit: knowledge.indexedCommit };
  },
});

export const listTags = defineOp({
  name: 'list_tags',
  description: 'Every tag in the vault with how many pages carry it, most used first.',
  scope: 'read',
  bucket: 'read',
  input: z.object({ limit: limit(10_000, 1000) }),
  output: z.object({
    tags: z.array(z.object({ tag: z.string(), pages: z.number().int() })).describe('Most used first'),
    total: z.number().int().describe('Distinct tags, including those beyond limit'),
  }),
  rest: { method: 'get', path: '/vault/tags' },
  mcp: { title: 'List tags', annotations: READ_ONLY },
  handler: async (ctx, input) => {
    const counts = new Map<string, number>();
    for (const meta of ctx.vault.knowledge.metas.values()) {
      if (!ctx.visible(meta.path)) continue;
      for (const tag of meta.tags) counts.set(tag, (counts.get(tag) ?? 0) + 1);
    }
    const tags = [...counts].map(([tag, pages]) => ({ tag, pages })).sort((a, b) => b.pages - a.pages || (a.tag < b.tag ? -1 : 1));
    return { tags: tags.slice(0, input.limit), total: tags.length };
  },
});

export const rebuildIndex = defineOp({
  name: 'rebuild_index',
  description: 'Rebuild the search index, link graph and page metadata from the current commit. Only needed if results look stale.',
  scope: 'write',
  bucket: 'expensive',
  // It works on every page and answers with their number.
  wholeVault: true,
  input: z.object({}),
  output: z.object({ pages: z.number().int(), ms: z.number().describe('How long it took'), indexed_commit: indexedCommit }),
  rest: { method: 'post', path: '/vault/index/rebuild' },
  mcp: { title: 'Rebuild index', annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true } },
  handler: async (ctx) => {
    const { pages, ms } = await ctx.vault.knowledge.rebuild(
      ctx.progress && ((done, total) => ctx.progress!(done, total, `${done} of ${total} pages indexed`)),
    );
    return { pages, ms, indexed_commit: ctx.vault.knowledge.indexedCommit };
  },
});
