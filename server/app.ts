import express, { type Express } from 'express';
import { catalog } from './ops/catalog.js';
import { restRouter } from './rest/router.js';
import type { Services } from './services.js';

/** The whole HTTP surface: REST under /vault (more surfaces mount here as they land). */
export function createApp(services: Services): Express {
  const app = express();
  app.disable('x-powered-by');
  app.get('/healthz', (_req, res) => {
    res.json({ ok: true });
  });
  app.use(restRouter(services, catalog));
  return app;
}
