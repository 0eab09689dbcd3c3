import { z } from 'zod';
import { ask, MAX_ASK_PAGES, DEFAULT_ASK_PAGES, retrievePassages } from '../../vault-store/knowledge/ask.js';
import { QuireError } from '../../vault-store/errors.js';
import { similar } from '../../vault-store/knowledge/similar.js';
import { generateAnswer } from '../llm/chat.js';
import { defineOp } from './operation.js';
import { visiblePath } from './pages.js';
import { indexedCommit, pageHit } from './outputs.js';
import { limit, pagePath } from './schemas.js';

const ANSWER_PASSAGES = 5;

export const askOp = defineOp({
  name: 'ask',
  description: `Answer a question from the vault, with citations (path, hash, excerpt) of the pages the answer comes from. Reads up to max_pages pages (1-${MAX_ASK_PAGES}, default ${DEFAULT_ASK_PAGES}).`,
  scope: 'read',
  bucket: 'expensive',
  input: z.object({
    question: z.string().min(1).max(2000),
    max_pages: z.coerce.number().int().min(1).max(MAX_ASK_PAGES).default(DEFAULT_ASK_PAGES),
  }),
  output: z.object({
    answer: z.string(),
    citations: z
      .array(z.object({ path: z.string(), hash: pageHit.shape.hash, excerpt: z.string() }))
      .describe('The passages the answer comes from'),
    pages_used: z.number().int().describe('Pages read to answer'),
    mode: z
      .enum(['extractive', 'generated'])
      .describe('extractive: quotes your pages; generated: written by the configured language model'),
    indexed_commit: indexedCommit,
    llm_error: z.string().optional().describe('Set when the language model failed and the answer quotes the pages instead'),
  }),
  rest: { method: 'post', path: '/vault/ask' },
  mcp: { title: 'Ask the vault', annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false } },
  handler: async (ctx, input) => {
    const { index, indexedCommit } = ctx.vault.knowledge;
    const query = { question: input.question, maxPages: input.max_pages, visible: ctx.visible };
    const extractive = { ...ask(index, query), mode: 'extractive' as const, indexed_commit: indexedCommit };
    const llm = ctx.config.llm;
    if (!llm || extractive.citations.length === 0) return extractive;
    const { passages } = retrievePassages(index, query);
    const used = passages.slice(0, ANSWER_PASSAGES);
    // Retrieval is quick; the model's answer is what a client waits for.
    ctx.progress?.(1, 2, `Found ${used.length} passages; generating the answer`);
    try {
      const answer = await generateAnswer(llm, input.question, used);
      ctx.progress?.(2, 2, 'Answer generated');
      return {
        answer,
        citations: used.map((p) => ({ path: p.path, hash: p.hash, excerpt: p.text })),
        pages_used: extractive.pages_used,
        mode: 'generated' as const,
        indexed_commit: indexedCommit,
      };
    } catch (err) {
      // The vault still answers when the model does not: quote the passages instead.
      ctx.services.log.warn({ err: (err as Error).message }, 'LLM answer failed, answering extractively');
      return { ...extractive, llm_error: 'The language model did not answer; this answer quotes your pages instead.' };
    }
  },
});

export const similarPages = defineOp({
  name: 'similar_pages',
  description:
    'Pages most similar to a given page (path) or to a piece of text (text): by meaning when an embeddings model is configured, else by shared distinctive terms. `mode` says which.',
  scope: 'read',
  bucket: 'read',
  input: z
    .object({ path: pagePath.optional(), text: z.string().min(1).max(100_000).optional(), limit: limit(100, 10) })
    .refine((v) => (v.path === undefined) !== (v.text === undefined), { message: 'give exactly one of path or text', path: ['path'] }),
  output: z.object({
    results: z.array(pageHit),
    mode: z.enum(['terms', 'embeddings']).describe('embeddings: by meaning; terms: by shared distinctive terms'),
    embeddings: z
      .object({
        embedded: z.number().int(),
        pending: z.number().int().describe('Pages not embedded yet'),
        error: z.string().optional().describe('Why the embeddings model failed, when it did'),
      })
      .optional()
      .describe('Coverage, when an embeddings model is configured'),
    indexed_commit: indexedCommit,
  }),
  rest: { method: 'get', path: '/vault/similar' },
  mcp: { title: 'Similar pages', annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true } },
  handler: async (ctx, input) => {
    const { index, indexedCommit } = ctx.vault.knowledge;
    const target = input.path !== undefined ? { path: visiblePath(ctx, input.path) } : { text: input.text! };
    const terms = () => ({
      results: similar(index, target, input.limit, ctx.visible),
      mode: 'terms' as const,
      indexed_commit: indexedCommit,
    });
    const { embeddings } = ctx.vault;
    if (!embeddings) return terms();
    const coverage = { ...embeddings.coverage(ctx.visible), ...(embeddings.lastError ? { error: embeddings.lastError } : {}) };
    try {
      return {
        results: await embeddings.similar(target, input.limit, ctx.visible),
        mode: 'embeddings' as const,
        embeddings: coverage,
        indexed_commit: indexedCommit,
      };
    } catch (err) {
      if (err instanceof QuireError) throw err;
      // Similar pages still answer when the model does not: by shared terms.
      return { ...terms(), embeddings: { ...coverage, error: (err as Error).message } };
    }
  },
});
