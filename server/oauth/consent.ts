import express, { type Request, type Response, type Router } from 'express';
import type { AuthorizationParams } from '@modelcontextprotocol/sdk/server/auth/provider.js';
import type { OAuthClientInformationFull } from '@modelcontextprotocol/sdk/shared/auth.js';
import type { Services } from '../services.js';
import { readCookie, sameSecret } from '../web/cookies.js';
import { sendPage } from '../web/page.js';
import { authorizationResponse } from './authorization-response.js';
import { isMetadataDocumentId } from './client-metadata-rules.js';
import type { OAuthGrants } from './grants-store.js';
import { consentPage, errorPage, signInPage, type RequestView } from './pages.js';
import { PendingAuthorizations, type PendingAuthorization } from './pending.js';
import { opensApp } from './redirect-uris.js';
import { audienceFor, parseScopes } from './scopes.js';

const COOKIE_PATH = '/oauth/authorize';

/**
 * The browser part of `{auth_url}/oauth/authorize`: sign in, then consent. A pending
 * request's CSRF token must come back both in the form and in a SameSite=Strict cookie
 * set when the flow began, so a cross-site form post is refused.
 */
export class ConsentFlow {
  private readonly pending = new PendingAuthorizations();
  private readonly secure: boolean;

  constructor(
    private readonly services: Services,
    private readonly grants: OAuthGrants,
    private readonly issuer: string,
  ) {
    this.secure = services.config.authUrl.startsWith('https:');
  }

  /**
   * Called through the provider once the authorize endpoint has checked client, redirect URI
   * and PKCE; a bad scope or resource throws here, before anything is sent.
   */
  begin(client: OAuthClientInformationFull, params: AuthorizationParams, res: Response): void {
    const scopes = parseScopes(params.scopes);
    const resource = audienceFor(params.resource, this.services.config.baseUrl) ?? `${this.services.config.baseUrl}/mcp`;
    const pending = this.pending.create({
      client_id: client.client_id,
      client_name: client.client_name ?? 'Unnamed app',
      ...(client.logo_uri && isMetadataDocumentId(client.client_id) ? { logo_host: new URL(client.logo_uri).host } : {}),
      redirect_uri: params.redirectUri,
      state: params.state,
      scopes,
      challenge: params.codeChallenge,
      resource,
    });
    res.cookie(this.cookieName(pending), pending.csrf, {
      httpOnly: true,
      sameSite: 'strict',
      secure: this.secure,
      path: COOKIE_PATH,
      maxAge: 10 * 60_000,
    });
    sendPage(res, 200, signInPage(this.view(pending, 'login')));
  }

  router(): Router {
    const router = express.Router();
    router.use(express.urlencoded({ extended: false, limit: '16kb' }));
    router.post('/login', (req, res) => this.login(req, res));
    router.post('/consent', (req, res) => this.consent(req, res));
    return router;
  }

  private async login(req: Request, res: Response): Promise<void> {
    const pending = this.checked(req, res);
    if (!pending) return;
    // The account area's throttle: opening another authorization request buys no guesses.
    const result = await this.services.signins.signIn(String(req.body.username ?? ''), String(req.body.password ?? ''), req.ip);
    if (!result.ok) {
      if (result.retryAfter) res.setHeader('Retry-After', String(result.retryAfter));
      return sendPage(res, result.status, signInPage({ ...this.view(pending, 'login'), error: result.message, username: result.username }));
    }
    const username = result.user;
    const plan = this.services.config.plans[(await this.services.accounts.requireUser(username)).plan];
    if (!plan?.mcp) {
      this.pending.delete(pending.id);
      return sendPage(res, 403, errorPage('Your plan does not include MCP access.'));
    }
    pending.user = username;
    sendPage(
      res,
      200,
      consentPage({
        ...this.view(pending, 'consent'),
        user: username,
        scopes: pending.scopes,
        agents: (await this.services.agents.list(username)).map((a) => a.name),
      }),
    );
  }

  private async consent(req: Request, res: Response): Promise<void> {
    const pending = this.checked(req, res);
    if (!pending) return;
    if (!pending.user) return sendPage(res, 400, errorPage('Sign in first.'));
    this.pending.delete(pending.id);
    res.clearCookie(this.cookieName(pending), { path: COOKIE_PATH });
    const ticked = ([] as string[]).concat(req.body.scope ?? []);
    const scopes = pending.scopes.filter((s) => ticked.includes(s));
    if (req.body.decision !== 'approve' || scopes.length === 0) {
      const description = scopes.length === 0 && req.body.decision === 'approve' ? 'No scope was approved' : 'The user denied access';
      return res.redirect(
        302,
        authorizationResponse(pending.redirect_uri, this.issuer, {
          error: 'access_denied',
          error_description: description,
          state: pending.state,
        }),
      );
    }
    // "Act as me" or one of the user's agents: the agent's path rules then bound every call.
    const actAs = String(req.body.act_as ?? '');
    if (actAs && !(await this.services.agents.get(pending.user, actAs)))
      return sendPage(res, 400, errorPage('That agent no longer exists.'));
    const code = await this.grants.issueCode({
      client_id: pending.client_id,
      client_name: pending.client_name,
      user: pending.user,
      scopes,
      resource: pending.resource,
      redirect_uri: pending.redirect_uri,
      challenge: pending.challenge,
      ...(actAs ? { agent: actAs } : {}),
    });
    res.redirect(302, authorizationResponse(pending.redirect_uri, this.issuer, { code, state: pending.state }));
  }

  /** The pending request named by the form, if its CSRF token matches form and cookie. */
  private checked(req: Request, res: Response): PendingAuthorization | undefined {
    const pending = this.pending.get(String(req.body?.request ?? ''));
    if (!pending) {
      sendPage(res, 400, errorPage('This sign-in request has expired or was already used.'));
      return undefined;
    }
    const fromCookie = readCookie(req, this.cookieName(pending)) ?? '';
    const fromForm = String(req.body.csrf ?? '');
    if (!sameSecret(fromForm, pending.csrf) || !sameSecret(fromCookie, pending.csrf)) {
      sendPage(res, 403, errorPage('This form was not sent from the sign-in page (security check failed).'));
      return undefined;
    }
    return pending;
  }

  private cookieName(pending: PendingAuthorization): string {
    return `quire_oauth_${pending.id}`;
  }

  private view(pending: PendingAuthorization, step: 'login' | 'consent'): RequestView {
    return {
      action: `${this.services.config.authUrl}/oauth/authorize/${step}`,
      request: pending.id,
      csrf: pending.csrf,
      clientName: pending.client_name,
      redirectHost: new URL(pending.redirect_uri).host,
      ...(opensApp(pending.redirect_uri) ? { appRedirect: pending.redirect_uri } : {}),
      ...(isMetadataDocumentId(pending.client_id) ? { metadataDocument: pending.client_id, logoHost: pending.logo_host } : {}),
    };
  }
}
