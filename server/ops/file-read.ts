import { buffer } from 'node:stream/consumers';
import { charset } from 'mime-types';
import { z } from 'zod';
import { QuireError } from '../../vault-store/errors.js';
import type { FileInfo } from '../../vault-store/files.js';
import { mediaType, sendFile } from '../http/file-response.js';
import { defineOp, type OpContext } from './operation.js';
import { fileInfo } from './outputs.js';
import type { RawResult } from './raw-result.js';
import { filePath, visibleFile } from './file-paths.js';

/**
 * The largest image `read_file` returns as MCP image content. No maintained image library is
 * installed (sharp and the like need native builds), so nothing is downscaled: larger ones are
 * refused with the way to fetch them instead.
 */
export const MCP_IMAGE_MAX_BYTES = 4 * 1024 * 1024;

const readResult = fileInfo.extend({
  mime_type: z.string(),
  returned_as: z
    .enum(['text', 'image', 'link'])
    .describe('text: in `text`; image: an image content block; link: a resource link to the REST URL'),
  text: z.string().optional().describe('The file as UTF-8 text, for text-like files'),
  data: z.string().optional().describe('An image, base64 (sent as the image content block, not in the structured result)'),
  uri: z.string().optional().describe('Where to download the bytes (REST, with an API key), for files returned as a link'),
});
type ReadResult = z.output<typeof readResult>;

/** Text by type (text/*, JSON, XML, SVG, …, as mime-types gives them a UTF-8 charset) or by being a page. */
function textLike(info: FileInfo, type: string): boolean {
  return info.kind === 'page' || charset(type) === 'UTF-8' || type === 'image/svg+xml';
}

function tooLarge(info: FileInfo, limit: number, what: string): QuireError {
  return new QuireError(
    'PAYLOAD_TOO_LARGE',
    `${info.path} is ${info.size} bytes; MCP returns ${what} up to ${limit} bytes (no downscaling). Download it with GET /vault/file/${info.path}`,
    { path: info.path, size: info.size, limit },
  );
}

async function bytesOf(ctx: OpContext, info: FileInfo): Promise<Buffer> {
  return buffer(await ctx.vault.files.stream(info.hash));
}

async function forTool(ctx: OpContext, info: FileInfo): Promise<ReadResult> {
  const mime_type = mediaType(info.path);
  const link = (): ReadResult => ({
    ...info,
    mime_type,
    returned_as: 'link',
    uri: `${ctx.config.baseUrl}/vault/file/${encodeURI(info.path)}`,
  });
  if (textLike(info, mime_type)) {
    if (info.size > ctx.config.maxPageBytes) throw tooLarge(info, ctx.config.maxPageBytes, 'text');
    const bytes = await bytesOf(ctx, info);
    try {
      return { ...info, mime_type, returned_as: 'text', text: new TextDecoder('utf-8', { fatal: true }).decode(bytes) };
    } catch {
      // Named like text, but not UTF-8: the bytes are better fetched as they are.
      return link();
    }
  }
  if (mime_type.startsWith('image/')) {
    if (info.size > MCP_IMAGE_MAX_BYTES) throw tooLarge(info, MCP_IMAGE_MAX_BYTES, 'images');
    return { ...info, mime_type, returned_as: 'image', data: (await bytesOf(ctx, info)).toString('base64') };
  }
  return link();
}

export const readFile = defineOp({
  name: 'read_file',
  description:
    'Read any file of the vault (a page or an attachment: image, PDF, canvas, …). Text files come back as text, images as image content (up to 4 MiB), anything else as a link with its size and type.',
  scope: 'read',
  bucket: 'read',
  input: z.object({ path: filePath }),
  output: readResult,
  rest: { method: 'get', path: '/vault/file/*path', bytes: 'out' },
  mcp: {
    title: 'Read file',
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true },
    toolResult: ({ data, ...structuredContent }) => {
      if (structuredContent.returned_as === 'image') {
        return { content: [{ type: 'image', data: data!, mimeType: structuredContent.mime_type }], structuredContent };
      }
      if (structuredContent.returned_as === 'text')
        return { content: [{ type: 'text', text: structuredContent.text! }], structuredContent };
      const { uri, path, mime_type, size } = structuredContent;
      return { content: [{ type: 'resource_link', uri: uri!, name: path, mimeType: mime_type, size }], structuredContent };
    },
  },
  handler: async (ctx, input) => forTool(ctx, await ctx.vault.files.stat(visibleFile(ctx, input.path))),
  restHandler: async (ctx, input): Promise<RawResult> => {
    const info = await ctx.vault.files.stat(visibleFile(ctx, input.path));
    return { raw: true, send: (res, req) => sendFile(req, res, { ...info, open: (range) => ctx.vault.files.stream(info.hash, range) }) };
  },
});
