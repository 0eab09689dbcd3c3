import type { IncomingMessage, ServerResponse } from 'node:http';
import express from 'express';
import { accountPath } from './account-web/account-path.js';
import { cloneResolver, pushResolver } from './git-http/resolve.js';
import { gitHttpRouter } from './git-http/router.js';
import { listedOriginsCors } from './http/cors.js';
import { finalHandlers } from './http/final-handlers.js';
import { lazyHandler, once, under } from './http/lazy-handler.js';
import { refuseMalformedUrl } from './http/malformed-url.js';
import { requestLog } from './log/request-log.js';
import { securityHeaders } from './http/security-headers.js';
import { catalog } from './ops/catalog.js';
import { pagePathPrefixes } from './rest/route-table.js';
import { isRestUrl, restHandler } from './rest/router.js';
import type { Services } from './services.js';

/**
 * surfaces.ts, when first needed. Under the test runner modules are CommonJS (mocha requires
 * the TypeScript through tsx), and an import() there would load a second copy of all the
 * surfaces reach, whose QuireError and zod classes fail `instanceof` against the first's:
 * there `require` loads the same copy. Compiled, this is an ES module and imports it.
 */
function loadSurfaces(): Promise<typeof import('./surfaces.js')> {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return typeof require === 'function' ? Promise.resolve(require('./surfaces.js')) : import('./surfaces.js');
}

/**
 * The whole HTTP surface: REST under /vault, answered ahead of Express (rest/router.ts),
 * then OAuth, the account area, MCP at /mcp and git as Express routes (more surfaces mount
 * here as they land). OAuth, the account area and MCP are loaded with the first request for
 * any of them (lazy-handler.ts): a server used over REST alone never loads the MCP SDK
 * (~12 MB of a fresh server's RSS).
 */
export function createApp(services: Services): (req: IncomingMessage, res: ServerResponse) => void {
  const rest = restHandler(services, catalog);
  const app = express();
  app.disable('x-powered-by');
  // Express would hash every JSON body for a weak ETag; validators are set where they are real (a page's blob id).
  app.set('etag', false);
  // Behind a reverse proxy, req.ip (sign-in throttle, registration limit) is the client only if the proxy is named.
  app.set('trust proxy', services.config.trustProxy);
  app.use(requestLog(services.log), securityHeaders, refuseMalformedUrl(pagePathPrefixes(catalog)));
  app.get('/healthz', (_req, res) => {
    res.json({ ok: true });
  });
  const surfaces = once(async () => (await loadSurfaces()).lazySurfaces(services, catalog));
  const oauthPaths = [under('/oauth'), under('/.well-known')];
  app.use(
    lazyHandler(
      async () => (await surfaces()).oauth,
      (path) => oauthPaths.some((claims) => claims(path)),
    ),
  );
  const account = accountPath(services.config);
  app.use(
    account || '/',
    lazyHandler(async () => (await surfaces()).account),
  );
  // Browser MCP clients on the listed origins (the OAuth endpoints are open to all: oauth/router.ts).
  app.use('/mcp', listedOriginsCors(services.config.mcpAllowedOrigins));
  app.use(lazyHandler(async () => (await surfaces()).mcp, under('/mcp')));
  app.use(gitHttpRouter({ resolve: cloneResolver(services), resolvePush: pushResolver(services), log: services.log }));
  app.use(finalHandlers(account, services.log));
  // The API first, by prefix: a REST request passes no other surface's routes, nor Express.
  return (req, res) => (isRestUrl(req.url!) ? rest(req, res) : app(req, res));
}
