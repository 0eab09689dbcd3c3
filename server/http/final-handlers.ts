import type { ErrorRequestHandler, RequestHandler, Response } from 'express';
import { QuireError } from '../../vault-store/errors.js';
import type { Logger } from '../log/logger.js';
import { sendError, toQuireError } from './errors.js';
import { html } from '../web/html.js';
import { renderShell, sendPage } from '../web/page.js';
import { HTTP_STATUS } from './status.js';

type Surface = 'rest' | 'mcp' | 'oauth' | 'git' | 'page';

/** Whose client asked, so the error comes in the one format that client reads. */
function surfaceOf(path: string, accountPath: string): Surface {
  const under = (prefix: string) => path === prefix || path.startsWith(`${prefix}/`);
  if (under('/vault.git')) return 'git';
  if (under('/vault')) return 'rest';
  if (under('/mcp')) return 'mcp';
  if (under('/oauth/authorize')) return 'page';
  if (under('/oauth') || under('/.well-known')) return 'oauth';
  if (accountPath === '' || under(accountPath)) return 'page';
  return 'rest';
}

function errorPage(error: QuireError, status: number, accountPath: string): string {
  const title = status >= 500 ? 'Something went wrong' : status === 404 ? 'Not found' : 'That request cannot be answered';
  return renderShell({
    title,
    narrow: true,
    body: html`<div class="card"><h1>${title}</h1><p>${error.message}</p>
<p class="muted small">Error code: ${error.code}</p><p><a href="${accountPath}/">Go to your account</a></p></div>`,
  });
}

function answer(res: Response, surface: Surface, error: QuireError, accountPath: string): void {
  const status = HTTP_STATUS[error.code];
  const internal = error.code === 'INTERNAL';
  switch (surface) {
    case 'rest':
      return sendError(res, error);
    case 'mcp':
      // JSON-RPC's own codes, with ours in `data` as tool results carry it.
      return void res.status(status).json({
        jsonrpc: '2.0',
        error: { code: internal ? -32603 : -32600, message: error.message, data: { code: error.code } },
        id: null,
      });
    case 'oauth':
      return void res.status(status).json({ error: internal ? 'server_error' : 'invalid_request', error_description: error.message });
    case 'git':
      return void res.status(status).type('text/plain').send(`${error.message}\n`);
    case 'page':
      return sendPage(res, status, errorPage(error, status, accountPath));
  }
}

/**
 * The end of the app: a 404 for any route no surface claimed, then the one handler every
 * error nobody answered reaches. It never shows a stack or an install path, whatever
 * NODE_ENV says; the security headers are already on the response (securityHeaders).
 */
export function finalHandlers(accountPath: string, log: Logger): [RequestHandler, ErrorRequestHandler] {
  const notFound: RequestHandler = (req, _res, next) => next(new QuireError('NOT_FOUND', `No such endpoint: ${req.method} ${req.path}`));
  const lastResort: ErrorRequestHandler = (err, req, res, _next) => {
    const error = toQuireError(err, log);
    // Too late for an error body: cut the response short so the client sees it failed.
    if (res.headersSent) return void res.destroy();
    answer(res, surfaceOf(req.path, accountPath), error, accountPath);
  };
  return [notFound, lastResort];
}
