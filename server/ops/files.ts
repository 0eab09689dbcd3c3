import { Readable } from 'node:stream';
import { z } from 'zod';
import { QuireError } from '../../vault-store/errors.js';
import { fileKind, normalizePrefix, normalizeVaultFilePath } from '../../vault-store/paths.js';
import { checkPlan } from './invoke.js';
import { defineOp, type OpContext } from './operation.js';
import { fileInfo } from './outputs.js';
import { baseHash, folderPrefix, limit, nextCursor, pageCursor } from './schemas.js';
import { filePath, preconditions } from './file-paths.js';

/** Base64 as a write sends it (standard alphabet, padding optional); anything else is refused, not skipped. */
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/**
 * The most bytes one write of `path` may bring: the plan's `max_file_bytes`, and for a page
 * also the page limit (a page is indexed, searched and sent whole).
 */
async function maxBytesFor(ctx: OpContext, path: string): Promise<number> {
  const plan = await checkPlan(ctx.services, ctx.credential, ctx.surface);
  return fileKind(path) === 'page' ? Math.min(plan.max_file_bytes, ctx.config.maxPageBytes) : plan.max_file_bytes;
}

/**
 * The bytes a tool call sends, base64. The string is in memory already (bounded by the /mcp
 * body limit), so decoding it costs little; the limit is checked on the decoded size.
 */
function decodedBody(content: string | undefined): { stream: AsyncIterable<Uint8Array>; size: number } {
  if (content === undefined) throw new QuireError('INVALID_REQUEST', 'content_base64: required', { field: 'content_base64' });
  if (!BASE64.test(content)) throw new QuireError('INVALID_REQUEST', 'content_base64: not base64', { field: 'content_base64' });
  const bytes = Buffer.from(content, 'base64');
  return { stream: Readable.from([bytes]), size: bytes.byteLength };
}

export const listFiles = defineOp({
  name: 'list_files',
  description:
    'List every file of the vault (pages and attachments) sorted by path, with hash, size and kind, optionally in one folder. Returns next_cursor while more remain.',
  scope: 'read',
  bucket: 'read',
  input: z.object({
    prefix: folderPrefix,
    limit: limit(1000, 100),
    cursor: pageCursor,
  }),
  output: z.object({
    files: z.array(fileInfo),
    next_cursor: nextCursor,
  }),
  rest: { method: 'get', path: '/vault/files' },
  mcp: { title: 'List files', annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true } },
  handler: (ctx, input) =>
    ctx.vault.files.list({ prefix: normalizePrefix(input.prefix), limit: input.limit, cursor: input.cursor, visible: ctx.visible }),
});

export const writeFile = defineOp({
  name: 'write_file',
  description:
    "Create or replace any file of the vault (an image, a PDF, a page) with bytes given as base64. Give base_hash (the file's hash) to replace only that version, null to create only; a mismatch fails with CONFLICT and the current hash.",
  scope: 'write',
  bucket: 'write',
  input: z.object({
    path: filePath,
    content_base64: z.string().optional().describe('The whole file, base64 (required; on REST the raw request body instead)'),
    base_hash: baseHash,
  }),
  output: fileInfo.extend({
    commit: z.string().nullable().describe('null when the file already had these bytes (nothing committed)'),
    created: z.boolean().describe('True when the file did not exist before'),
  }),
  writes: (input) => [normalizeVaultFilePath(input.path)],
  rest: {
    method: 'put',
    path: '/vault/file/*path',
    bytes: 'in',
    headers: preconditions,
    status: (r: { created: boolean }) => (r.created ? 201 : 200),
  },
  mcp: { title: 'Write file', annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true } },
  handler: async (ctx, input) => {
    const path = normalizeVaultFilePath(input.path);
    const maxBytes = await maxBytesFor(ctx, path);
    const body = ctx.body ?? decodedBody(input.content_base64);
    return ctx.vault.files.write(ctx.author, { path, body: body.stream, size: body.size, maxBytes, baseHash: input.base_hash });
  },
});

export const deleteFile = defineOp({
  name: 'delete_file',
  description:
    'Delete any file of the vault. Give base_hash to delete only the version you read (CONFLICT otherwise). It stays in git history.',
  scope: 'write',
  bucket: 'write',
  input: z.object({ path: filePath, base_hash: baseHash }),
  output: z.object({ path: z.string(), deleted: z.literal(true), commit: z.string().describe('The commit that deleted it') }),
  writes: (input) => [normalizeVaultFilePath(input.path)],
  rest: { method: 'delete', path: '/vault/file/*path', headers: preconditions },
  mcp: { title: 'Delete file', annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false } },
  handler: async (ctx, input) => {
    const path = normalizeVaultFilePath(input.path);
    const event = await ctx.vault.files.delete(ctx.author, { path, baseHash: input.base_hash });
    return { path, deleted: true as const, commit: event.commit };
  },
});
