import type { IncomingHttpHeaders } from 'node:http';
import type { ContentBlock } from '@modelcontextprotocol/sdk/types.js';
import type { z } from 'zod';
import type { Author } from '../../vault-store/vault.js';
import type { Workspace } from '../../vault-store/workspace.js';
import type { Agent } from '../agents/agent-store.js';
import type { Bucket } from '../accounts/plans.js';
import type { Capability, Credential } from '../auth/credential.js';
import type { Config } from '../config.js';
import type { Services } from '../services.js';
import type { RawResult } from './raw-result.js';

export type Surface = 'rest' | 'mcp';

/** What a handler gets: the caller, their vault, and the server's services. */
export interface OpContext {
  user: string;
  credential: Credential;
  author: Author;
  /** The caller's vault: handlers use the workspace's methods and parts, never its `vault`. */
  vault: Workspace;
  config: Config;
  services: Services;
  surface: Surface;
  /** The agent the credential is bound to; undefined for the owner. */
  agent?: Agent;
  /**
   * False for paths the caller may not read (an agent's read prefixes). Every handler that
   * reveals content or names filters through it: a hidden page behaves as if absent.
   */
  visible: (path: string) => boolean;
  /**
   * Set when the caller can hear how a long operation advances (MCP with a progress token):
   * `done` of `total` (when known), in units the handler picks, never going back.
   */
  progress?: (done: number, total?: number, message?: string) => void;
  /**
   * The raw request body of a REST route with `bytes: 'in'` (never parsed or buffered), with
   * its Content-Length when the client sent one.
   */
  body?: { stream: AsyncIterable<Uint8Array>; size?: number };
  /**
   * Aborted when nobody waits for the answer any more: the client closed its connection (REST,
   * or the MCP request's own HTTP connection). A handler that waits (a long-poll) stops waiting.
   */
  signal?: AbortSignal;
  /**
   * Authenticates the request's credential again: false once the key, token or grant it came
   * with was revoked (or its user deleted). For connections that outlive the check made when
   * they opened (see LiveConnections); a rejection means the check could not be made.
   */
  recheck?: () => Promise<boolean>;
}

export interface RestBinding<R> {
  method: 'get' | 'post' | 'put' | 'delete';
  /** Express 5 path; a `*path` wildcard is joined back into one `/`-separated string. */
  path: string;
  /** Defaults to 200. */
  status?: (result: R) => number;
  /** A strong validator of the result (a blob id): sent as `ETag`, and `If-None-Match` with it answers 304. */
  etag?: (result: R) => string;
  /**
   * The route carries file bytes, not JSON: `in`, the request body is not parsed but handed to
   * the handler as `ctx.body`; `out`, the answer is a RawResult. Such routes differ from the
   * tool by design (base64 and image content on MCP), so the parity test leaves them out.
   */
  bytes?: 'in' | 'out';
  /** Input fields taken from request headers (If-Match as `base_hash`, …), below path parameters. */
  headers?: (headers: IncomingHttpHeaders) => Record<string, unknown>;
}

export interface McpBinding<R = unknown> {
  title: string;
  annotations: { readOnlyHint: boolean; destructiveHint: boolean; idempotentHint: boolean; openWorldHint?: boolean };
  /**
   * The tool result's content blocks (an image, a resource link) and the structured content
   * they go with, in place of the result as JSON text; for results that are more than data.
   */
  toolResult?: (result: R) => { content: ContentBlock[]; structuredContent: Record<string, unknown> };
}

/**
 * One operation, declared once. REST routes and MCP tools are generated from this; scope,
 * plan, rate limit and input validation are enforced by `invoke`, never by an adapter.
 */
export interface Operation<S extends z.ZodObject = z.ZodObject, R = unknown> {
  /** Also the MCP tool name. */
  name: string;
  /** Written for an assistant deciding whether and how to call it. */
  description: string;
  scope: Capability;
  bucket: Bucket;
  /** When the bucket depends on the input (a query that must scan the whole vault is `expensive`); an input that does not parse counts in `bucket`. */
  bucketFor?: (input: z.infer<S>) => Bucket;
  input: S;
  rest: RestBinding<R> | null;
  /** null only with a reason in `restOnly` (e.g. a binary download). */
  mcp: McpBinding<R> | null;
  restOnly?: string;
  /**
   * The result's schema, the MCP tool's `outputSchema`: required with an MCP binding, and the
   * handler's return type is inferred from it (see `defineOp`), so the two cannot drift apart.
   */
  output?: z.ZodType<R>;
  /**
   * The page paths (or folder prefixes ending in "/") a write will touch, so agent mode and
   * write prefixes are checked before the handler.
   */
  writes?: (input: z.infer<S>) => string[];
  /** Paths a proposal would change: checked against write prefixes like `writes`, but a `propose` agent may. */
  proposes?: (input: z.infer<S>) => string[];
  /** Only the owner (a credential not bound to an agent) may call it: agent management, approvals. */
  ownerOnly?: boolean;
  /** Hands out or works on the whole vault at once (export, rebuild): refused to an agent that cannot read all of it. */
  wholeVault?: boolean;
  handler: (ctx: OpContext, input: z.infer<S>) => Promise<R>;
  /** Runs instead of `handler` on REST: for a route whose bytes the tool carries otherwise (a streamed download). */
  restHandler?: (ctx: OpContext, input: z.infer<S>) => Promise<R | RawResult>;
}

/**
 * Declares an operation with its input type inferred from `input` and, for an MCP tool, its
 * result type from `output`: a handler returning anything the output schema does not describe
 * is a type error. Only an operation without MCP binding may leave `output` out.
 */
export function defineOp<S extends z.ZodObject, O extends z.ZodType>(
  op: Operation<S, NoInfer<z.output<O>>> & { mcp: McpBinding<NoInfer<z.output<O>>>; output: O },
): Operation<S, z.output<O>>;
export function defineOp<S extends z.ZodObject, R>(op: Operation<S, R> & { mcp: null }): Operation<S, R>;
export function defineOp<S extends z.ZodObject, R>(op: Operation<S, R>): Operation<S, R> {
  return op;
}

export type AnyOperation = Operation<z.ZodObject, unknown>;
