import express, { type Express } from 'express';
import { accountRouter } from './account-web/router.js';
import { cloneResolver, pushResolver } from './git-http/resolve.js';
import { gitHttpRouter } from './git-http/router.js';
import { listedOriginsCors } from './http/cors.js';
import { finalHandlers } from './http/final-handlers.js';
import { refuseMalformedUrl } from './http/malformed-url.js';
import { requestLog } from './log/request-log.js';
import { securityHeaders } from './http/security-headers.js';
import { mcpRouter } from './mcp/router.js';
import { createOAuthServer } from './oauth/oauth-server.js';
import { oauthRouter } from './oauth/router.js';
import { catalog } from './ops/catalog.js';
import { pagePathPrefixes, REST_PREFIX } from './rest/route-table.js';
import { restRouter } from './rest/router.js';
import type { Services } from './services.js';

/** The whole HTTP surface: OAuth, the account area, MCP at /mcp, REST under /vault (more surfaces mount here as they land). */
export function createApp(services: Services): Express {
  const app = express();
  app.disable('x-powered-by');
  // Express would hash every JSON body for a weak ETag; validators are set where they are real (a page's blob id).
  app.set('etag', false);
  // Behind a reverse proxy, req.ip (sign-in throttle, registration limit) is the client only if the proxy is named.
  app.set('trust proxy', services.config.trustProxy);
  app.use(requestLog(services.log), securityHeaders, refuseMalformedUrl(pagePathPrefixes(catalog)));
  // The API first, by prefix: a REST request passes no other surface's routes.
  app.use(REST_PREFIX, restRouter(services, catalog));
  app.get('/healthz', (_req, res) => {
    res.json({ ok: true });
  });
  const oauth = createOAuthServer(services);
  app.use(oauthRouter(services.config, oauth));
  const account = accountRouter(services, catalog, oauth.grants);
  app.use(account.path || '/', account.router);
  // Browser MCP clients on the listed origins (the OAuth endpoints are open to all: oauth/router.ts).
  app.use('/mcp', listedOriginsCors(services.config.mcpAllowedOrigins));
  app.use(mcpRouter({ services, catalog, oauth: oauth.provider }));
  app.use(gitHttpRouter({ resolve: cloneResolver(services), resolvePush: pushResolver(services), log: services.log }));
  app.use(finalHandlers(account.path, services.log));
  return app;
}
