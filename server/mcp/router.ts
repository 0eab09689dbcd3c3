import express, { type ErrorRequestHandler, type RequestHandler, type Router } from 'express';
import { requireBearerAuth } from '@modelcontextprotocol/sdk/server/auth/middleware/bearerAuth.js';
import type { OAuthTokenVerifier } from '@modelcontextprotocol/sdk/server/auth/provider.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { errorFields, type Logger } from '../log/logger.js';
import type { AnyOperation } from '../ops/operation.js';
import type { RateState } from '../ratelimit/limiter.js';
import type { Services } from '../services.js';
import { credentialOf, credentialsPresent, credentialVerifier } from './authenticate.js';
import { createMcpServer } from './mcp-server.js';
import { rebindingGuard } from './rebinding-guard.js';
import { acceptJsonAlone } from './accept-json.js';

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

function rpcError(code: number, message: string) {
  return { jsonrpc: '2.0', error: { code, message }, id: null };
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

/** Stateless Streamable HTTP: a fresh server and transport per POST, answered as JSON. */
function handlePost(options: McpRouterOptions): RequestHandler {
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
    const server = createMcpServer({ services: options.services, catalog: options.catalog, credential, onRate });
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
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
  res.status(405).json(rpcError(-32000, 'Method not allowed: this server is stateless, POST JSON-RPC requests to /mcp'));
};

/** `/mcp`: rebinding guard, size limit, credentials (API key or OAuth token), then MCP. */
export function mcpRouter(options: McpRouterOptions): Router {
  const { baseUrl, maxPageBytes } = options.services.config;
  const metadataUrl = mcpResourceMetadataUrl(baseUrl);
  const resource = mcpResource(baseUrl);
  const router = express.Router();
  router.all('/mcp', ...rebindingGuard(baseUrl));
  router.post(
    '/mcp',
    // Same allowance as REST: a maximal page, JSON-escaped, inside a JSON-RPC envelope.
    express.json({ limit: maxPageBytes * 6 + 65536 }),
    credentialsPresent(metadataUrl),
    requireBearerAuth({
      verifier: credentialVerifier(options.services, options.oauth, resource),
      resourceMetadataUrl: metadataUrl,
      expectedResource: new URL(resource),
    }),
    acceptJsonAlone,
    handlePost(options),
  );
  router.all('/mcp', methodNotAllowed);
  router.use('/mcp', rpcErrors(options.services.log));
  return router;
}
