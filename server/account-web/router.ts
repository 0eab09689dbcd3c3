import express, { type ErrorRequestHandler, type Request, type RequestHandler, type Response, type Router } from 'express';
import { isQuireError } from '../../vault-store/errors.js';
import { HTTP_STATUS } from '../http/status.js';
import type { OAuthGrants } from '../oauth/grants-store.js';
import type { AnyOperation } from '../ops/operation.js';
import type { Services } from '../services.js';
import { CookieJar, readCookie } from '../web/cookies.js';
import { formMatches, fromOwnPage } from '../web/csrf.js';
import { html } from '../web/html.js';
import { renderShell, sendPage } from '../web/page.js';
import { SessionStore } from '../auth/sessions.js';
import { SigninLinks } from '../auth/signin-links.js';
import { accountPath } from './account-path.js';
import { agentRoutes } from './agents.js';
import { appRoutes } from './apps.js';
import { SESSION_COOKIE, sessionCredential, type AccountArea, type Visit } from './area.js';
import { deletedRoutes } from './deleted.js';
import { deviceRoutes } from './devices.js';
import { sendAccountPage } from './frame.js';
import { historyRoutes } from './history.js';
import { keyRoutes } from './keys.js';
import { proposalRoutes } from './proposals.js';
import { signinRoutes } from './signin.js';
import { vaultRoutes } from './vault.js';

declare module 'express-serve-static-core' {
  interface Locals {
    visit?: Visit;
    area?: AccountArea;
  }
}

function refused(res: Response, area: AccountArea): void {
  sendPage(
    res,
    403,
    renderShell({
      title: 'Refused',
      narrow: true,
      body: html`<div class="card"><h1>That request was refused</h1>
<p>It did not come from a page of this account area (security check). Nothing was changed.</p><p><a href="${area.path}/">Go to your account</a></p></div>`,
    }),
  );
}

/** The signed-in visitor, or a redirect to the sign-in page. Every POST must carry the session's token. */
function requireSession(area: AccountArea): RequestHandler {
  return async (req, res, next) => {
    const session = await area.sessions.find(readCookie(req, SESSION_COOKIE));
    if (!session || !(await area.services.accounts.user(session.user))) return res.redirect(303, `${area.path}/signin`);
    if (req.method === 'POST' && !formMatches(req, session.csrf)) return refused(res, area);
    const flash = req.method === 'GET' ? area.flashes.get(session.id) : undefined;
    if (flash) area.flashes.delete(session.id);
    res.locals.visit = { session, user: session.user, flash };
    req.credential = sessionCredential(session);
    next();
  };
}

/** A refused operation (validation, conflict, rate limit) as a page, with its code's status. */
const errorPage: ErrorRequestHandler = (err, _req, res, next) => {
  const visit = res.locals.visit;
  if (!isQuireError(err) || !visit || res.headersSent) return next(err);
  const area = res.locals.area!;
  sendAccountPage(
    res,
    area,
    { ...visit, flash: { kind: 'error', text: err.message } },
    {
      title: 'Cannot do that',
      section: '',
      status: HTTP_STATUS[err.code],
      body: html`<p><a href="${area.path}/">Back to your account</a></p>`,
    },
  );
};

export interface AccountRouter {
  /** Where to mount it: the path of `config.accountUrl`. */
  path: string;
  router: Router;
}

/** The account area: sign-in, then one page per thing a person manages. */
export function accountRouter(services: Services, catalog: AnyOperation[], grants: OAuthGrants): AccountRouter {
  const url = new URL(services.config.accountUrl);
  const path = accountPath(services.config);
  const area: AccountArea = {
    services,
    catalog,
    grants,
    sessions: new SessionStore(services.store),
    links: new SigninLinks(services.store),
    cookies: new CookieJar(path || '/', url.protocol === 'https:'),
    path,
    origin: url.origin,
    flashes: new Map(),
  };
  const router = express.Router();
  router.use((_req, res, next) => {
    res.locals.area = area;
    next();
  });
  router.use(express.urlencoded({ extended: false, limit: '64kb' }));
  router.use((req: Request, res, next) => (req.method === 'POST' && !fromOwnPage(req, area.origin) ? refused(res, area) : next()));
  signinRoutes(router, area);
  router.use(requireSession(area));
  router.post('/signout', async (_req, res) => {
    const { session } = res.locals.visit!;
    await area.sessions.end(session.id);
    area.flashes.delete(session.id);
    area.cookies.clear(res, SESSION_COOKIE);
    res.redirect(303, `${area.path}/signin?out=1`);
  });
  vaultRoutes(router, area);
  historyRoutes(router, area);
  deletedRoutes(router, area);
  keyRoutes(router, area);
  deviceRoutes(router, area);
  appRoutes(router, area);
  agentRoutes(router, area);
  proposalRoutes(router, area);
  router.use((_req, res) => {
    sendAccountPage(res, area, res.locals.visit!, {
      title: 'Not found',
      section: '',
      status: 404,
      body: html`<p>There is no such page in your account. <a href="${area.path}/">Go to your vault</a>.</p>`,
    });
  });
  router.use(errorPage);
  return { path, router };
}
