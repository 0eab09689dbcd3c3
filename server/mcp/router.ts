import express, { type ErrorRequestHandler, type Request, type RequestHandler, type Router } from 'express';
import type { OAuthTokenVerifier } from '@modelcontextprotocol/sdk/server/auth/provider.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { errorFields, type Logger } from '../log/logger.js';
import type { AnyOperation } from '../ops/operation.js';
import type { RateState } from '../ratelimit/limiter.js';
import type { Services } from '../services.js';
import { baseUrlAsRequested } from '../http/loopback.js';
import { bearerAuth, credentialOf, credentialsPresent, credentialVerifier, recheckOf } from './authenticate.js';
import { createMcpServer } from './mcp-server.js';
import { rebindingGuard } from './rebinding-guard.js';
import { acceptJsonAlone } from './accept-json.js';
import { scopeChallenge } from './step-up.js';
import { rpcError } from './json-rpc.js';
import { asksForProgress } from './progress.js';
import { endSession, namesSession, openStream, sessionOfPost } from './session-http.js';
import { SessionRegistry } from './sessions.js';

export interface McpRouterOptions {
  services: Services;
  catalog: readonly AnyOperation[];
  /** Verifies OAuth access tokens (the authorization server's provider). */
  oauth: OAuthTokenVerifier;
}

/** The protected resource: OAuth tokens are audience-bound to exactly this URL. */
export function mcpResource(baseUrl: string): string {
  return `${baseUrl}/mcp`;
}

export function mcpResourceMetadataUrl(baseUrl: string): string {
  return `${baseUrl}/.well-known/oauth-protected-resource/mcp`;
}

/** Failures outside a tool call as JSON-RPC errors, the only error shape an MCP client reads. */
function rpcErrors(log: Logger): ErrorRequestHandler {
  return (err: { type?: string }, _req, res, next) => {
    if (res.headersSent) return next(err);
    if (err.type === 'entity.too.large') return void res.status(413).json(rpcError(-32600, 'Request body is too large'));
    if (err.type === 'entity.parse.failed') return void res.status(400).json(rpcError(-32700, 'Parse error: body is not valid JSON'));
    log.error(errorFields(err), 'mcp request failed');
    res.status(500).json(rpcError(-32603, 'Internal error'));
  };
}

/**
 * Streamable HTTP with a fresh protocol server and transport per POST, answered as JSON, or
 * as SSE when the request asks for progress and the client reads SSE (progress notifications
 * go out on the request's own response). What outlives a request is the session's.
 */
function handlePost(options: McpRouterOptions, sessions: SessionRegistry, verifier: OAuthTokenVerifier): RequestHandler {
  return async (req, res) => {
    // Only a parsed JSON body is passed on, so the size limit above always applies.
    if (req.body === undefined) return void res.status(415).json(rpcError(-32000, 'Send JSON-RPC as application/json'));
    const credential = credentialOf(req.auth);
    req.credential = credential;
    const onRate = (rate: RateState) => {
      if (res.headersSent) return;
      res.setHeader('X-RateLimit-Limit', String(rate.limit));
      res.setHeader('X-RateLimit-Remaining', String(rate.remaining));
      res.setHeader('X-RateLimit-Bucket', rate.bucket);
    };
    const session = sessionOfPost(sessions, credential, req.body, res);
    if (session === null) return;
    const streamed = res.locals.readsEventStream === true && asksForProgress(req.body);
    const recheck = recheckOf(verifier, req.auth!.token);
    const server = createMcpServer({ services: options.services, catalog: options.catalog, credential, onRate, recheck, session });
    // Sessions are ours (sessions.ts): to the SDK's transport every request is stateless.
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: !streamed });
    res.on('close', () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(req, res, req.body);
  };
}

const methodNotAllowed: RequestHandler = (_req, res) => {
  res.setHeader('Allow', 'POST');
  res
    .status(405)
    .json(
      rpcError(
        -32000,
        'Method not allowed: POST JSON-RPC requests to /mcp; GET and DELETE need the Mcp-Session-Id that initialize returns',
      ),
    );
};

/** `/mcp`: rebinding guard, size limit, credentials (API key or OAuth token), then MCP. */
export function mcpRouter(options: McpRouterOptions): Router {
  const { baseUrl, maxPageBytes, mcpAllowedOrigins } = options.services.config;
  const metadataUrlOf = (req: Request) => mcpResourceMetadataUrl(baseUrlAsRequested(baseUrl, req.headers.host));
  const resource = mcpResource(baseUrl);
  const router = express.Router();
  const sessions = new SessionRegistry(options.services.config.mcpSessions);
  const verifier = credentialVerifier(options.services, options.oauth, resource);
  const authenticate = [credentialsPresent(metadataUrlOf), bearerAuth(verifier, new URL(resource), metadataUrlOf)];
  router.all('/mcp', ...rebindingGuard(baseUrl, mcpAllowedOrigins));
  router.post(
    '/mcp',
    // Same allowance as REST: a maximal page, JSON-escaped, inside a JSON-RPC envelope.
    express.json({ limit: maxPageBytes * 6 + 65536 }),
    ...authenticate,
    acceptJsonAlone,
    scopeChallenge(options.catalog, metadataUrlOf),
    handlePost(options, sessions, verifier),
  );
  router.get('/mcp', namesSession, ...authenticate, openStream(sessions));
  router.delete('/mcp', namesSession, ...authenticate, endSession(sessions));
  router.all('/mcp', methodNotAllowed);
  router.use('/mcp', rpcErrors(options.services.log));
  return router;
}
