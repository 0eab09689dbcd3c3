import type { Router } from 'express';
import { accountRouter } from './account-web/router.js';
import { mcpRouter } from './mcp/router.js';
import { createOAuthServer } from './oauth/oauth-server.js';
import { oauthRouter } from './oauth/router.js';
import type { AnyOperation } from './ops/operation.js';
import type { Services } from './services.js';

/** The surfaces app.ts loads on the first request for any of them: OAuth, the account area and MCP. */
export interface LazySurfaces {
  oauth: Router;
  account: Router;
  mcp: Router;
}

/** The three share the OAuth server (MCP verifies its tokens, the account area lists its grants). */
export function lazySurfaces(services: Services, catalog: AnyOperation[]): LazySurfaces {
  const oauth = createOAuthServer(services);
  return {
    oauth: oauthRouter(services.config, oauth),
    account: accountRouter(services, catalog, oauth.grants).router,
    mcp: mcpRouter({ services, catalog, oauth: oauth.provider }),
  };
}
