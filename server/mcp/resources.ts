import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  ErrorCode,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  McpError,
  ReadResourceRequestSchema,
  type ReadResourceResult,
  type Resource,
} from '@modelcontextprotocol/sdk/types.js';
import type { PageSummary, PageView } from '../../vault-store/page-view.js';
import { callOp, RESOURCE_NOT_FOUND } from './call-op.js';
import type { McpContext } from './context.js';

/** The URI template of a page, as the issue spells it; `{path}` is the vault path. */
export const PAGE_TEMPLATE = 'quire://page/{path}';
export const GUIDE_URI = 'quire://guide';
export const CONTEXT_PACK_URI = 'quire://context-pack';
export const CONTEXT_PACK_TEMPLATE = 'quire://context-pack{?topic}';
const PAGE_PREFIX = 'quire://page/';
const MARKDOWN = 'text/markdown';
const PAGE_SIZE = 100;
/** A pack read without a topic: a vault overview, ranked like any search (terms are OR-ed). */
const DEFAULT_TOPIC = 'overview index home readme';

/** A page's URI: each path segment percent-encoded, the `/` between them kept. */
export function pageUri(path: string): string {
  return PAGE_PREFIX + path.split('/').map(encodeURIComponent).join('/');
}

/**
 * The path named by a page URI, decoded once (so `%2F` from a client that expanded the
 * template strictly is a `/` too), or undefined when it is no page URI; a bad percent-encoding
 * throws Invalid params. The path is not checked here: it goes to the operations, whose input
 * schema applies the page-path rules.
 */
export function pathOfUri(uri: string): string | undefined {
  if (!uri.startsWith(PAGE_PREFIX)) return undefined;
  try {
    return decodeURIComponent(uri.slice(PAGE_PREFIX.length));
  } catch {
    throw new McpError(ErrorCode.InvalidParams, `Badly encoded resource URI: ${uri}`, { uri });
  }
}

const notFound = (uri: string) => () => new McpError(RESOURCE_NOT_FOUND, 'Resource not found', { uri });

const FIXED: Resource[] = [
  {
    uri: GUIDE_URI,
    name: 'GUIDE.md',
    title: 'Vault guide',
    description: "How this vault is organised (the owner's GUIDE.md, folders, tags) and what you may read and write. Read it first.",
    mimeType: MARKDOWN,
  },
  {
    uri: CONTEXT_PACK_URI,
    name: 'context-pack',
    title: 'Context pack',
    description: `The guide's summary and the most relevant pages within 4000 tokens, for the topic "${DEFAULT_TOPIC}"; add ?topic=… for another.`,
    mimeType: MARKDOWN,
  },
];

function pageResource(page: PageSummary): Resource {
  return {
    uri: pageUri(page.path),
    name: page.path,
    title: page.title,
    mimeType: MARKDOWN,
    size: page.size,
    annotations: { lastModified: page.updated_at },
  };
}

async function readUri(ctx: McpContext, uri: string): Promise<string> {
  const path = pathOfUri(uri);
  if (path !== undefined) return (await callOp<PageView>(ctx, 'read_page', { path }, notFound(uri))).content;
  if (uri === GUIDE_URI) return (await callOp<{ guide: string }>(ctx, 'guide', {})).guide;
  if (uri === CONTEXT_PACK_URI || uri.startsWith(`${CONTEXT_PACK_URI}?`)) {
    const topic = new URLSearchParams(uri.slice(CONTEXT_PACK_URI.length)).get('topic') || DEFAULT_TOPIC;
    return (await callOp<{ pack: string }>(ctx, 'context_pack', { topic })).pack;
  }
  throw notFound(uri)();
}

/**
 * `resources/list`, `resources/templates/list` and `resources/read`: every page the caller
 * may read as `quire://page/{path}` (markdown source as stored, front-matter included),
 * plus the guide and the context pack. Attachments will be blob resources once the API
 * has them. Subscriptions are declared and handled by the sessions capability.
 */
export function registerResources(server: Server, ctx: McpContext): void {
  server.registerCapabilities({ resources: {} });
  server.setRequestHandler(ListResourcesRequestSchema, async (request) => {
    const cursor = request.params?.cursor;
    const listed = await callOp<{ pages: PageSummary[]; next_cursor: string | null }>(ctx, 'list_pages', {
      limit: PAGE_SIZE,
      ...(cursor === undefined ? {} : { cursor }),
    });
    const pages = listed.pages.map(pageResource);
    return {
      resources: cursor === undefined ? [...FIXED, ...pages] : pages,
      ...(listed.next_cursor ? { nextCursor: listed.next_cursor } : {}),
    };
  });
  server.setRequestHandler(ListResourceTemplatesRequestSchema, () => ({
    resourceTemplates: [
      {
        uriTemplate: PAGE_TEMPLATE,
        name: 'page',
        title: 'Vault page',
        description: 'A page of the vault by its path, e.g. quire://page/projects/plan.md (segments percent-encoded). Paths complete.',
        mimeType: MARKDOWN,
      },
      {
        uriTemplate: CONTEXT_PACK_TEMPLATE,
        name: 'context-pack',
        title: 'Context pack on a topic',
        description: 'What the vault knows about a topic: the guide summary and the most relevant pages, within 4000 tokens.',
        mimeType: MARKDOWN,
      },
    ],
  }));
  server.setRequestHandler(ReadResourceRequestSchema, async (request): Promise<ReadResourceResult> => {
    const { uri } = request.params;
    return { contents: [{ uri, mimeType: MARKDOWN, text: await readUri(ctx, uri) }] };
  });
}
