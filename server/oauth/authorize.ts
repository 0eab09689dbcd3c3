import express, { type Request, type Response, type Router } from 'express';
import { rateLimit } from 'express-rate-limit';
import {
  InvalidClientError,
  InvalidRequestError,
  OAuthError,
  UnsupportedResponseTypeError,
} from '@modelcontextprotocol/sdk/server/auth/errors.js';
import { redirectUriMatches } from '@modelcontextprotocol/sdk/server/auth/handlers/authorize.js';
import type { AuthorizationParams, OAuthServerProvider } from '@modelcontextprotocol/sdk/server/auth/provider.js';
import type { OAuthClientInformationFull } from '@modelcontextprotocol/sdk/shared/auth.js';
import { sendPage } from '../web/page.js';
import { errorPage, refusedRequestPage } from './pages.js';
import { checkRedirectUri } from './redirect-uris.js';

type Params = Record<string, unknown>;

/** A parameter given at most once (RFC 6749 §3.1). */
function single(params: Params, name: string): string | undefined {
  const value = params[name];
  if (value === undefined || typeof value === 'string') return value;
  throw new InvalidRequestError(`${name} was given more than once`);
}

/** The registered URI to return to, checked again: the rules may have tightened since registration. */
function redirectUriFor(client: OAuthClientInformationFull, requested: string | undefined): string {
  if (requested === undefined && client.redirect_uris.length !== 1)
    throw new InvalidRequestError('redirect_uri is required: this client registered several');
  const uri = requested ?? client.redirect_uris[0];
  if (requested !== undefined && !client.redirect_uris.some((registered) => redirectUriMatches(requested, registered)))
    throw new InvalidRequestError('redirect_uri is not registered for this client');
  try {
    checkRedirectUri(uri);
  } catch (error) {
    throw new InvalidRequestError((error as Error).message);
  }
  return uri;
}

/** Everything the SDK's handler checked, with the same errors; scope and resource are the provider's. */
async function authorizationRequest(
  provider: OAuthServerProvider,
  params: Params,
): Promise<[OAuthClientInformationFull, AuthorizationParams]> {
  const clientId = single(params, 'client_id');
  if (!clientId) throw new InvalidRequestError('client_id is required');
  const client = await provider.clientsStore.getClient(clientId);
  if (!client) throw new InvalidClientError('Unknown client_id');
  const redirectUri = redirectUriFor(client, single(params, 'redirect_uri'));
  if (single(params, 'response_type') !== 'code') throw new UnsupportedResponseTypeError('response_type must be "code"');
  const codeChallenge = single(params, 'code_challenge');
  if (!codeChallenge) throw new InvalidRequestError('code_challenge is required (PKCE)');
  if (single(params, 'code_challenge_method') !== 'S256') throw new InvalidRequestError('code_challenge_method must be S256');
  const scope = single(params, 'scope');
  const resource = single(params, 'resource');
  if (resource !== undefined && !URL.canParse(resource)) throw new InvalidRequestError('resource must be an absolute URL');
  return [
    client,
    {
      redirectUri,
      codeChallenge,
      state: single(params, 'state'),
      scopes: scope ? scope.split(' ') : [],
      ...(resource !== undefined ? { resource: new URL(resource) } : {}),
    },
  ];
}

/**
 * `/oauth/authorize`, in place of the SDK's handler, which redirects most refusals to the
 * client. Any registered client's redirect URI is untrusted until the user has seen the
 * consent page naming it (anyone may register `https://evil/cb`), so every refusal here is a
 * page and never a redirect (RFC 9700 §4.11.2). Only the consent step sends the browser back.
 */
export function authorizeHandler(provider: OAuthServerProvider): Router {
  const router = express.Router();
  router.use(express.urlencoded({ extended: false, limit: '16kb' }));
  // Each request holds a pending sign-in: one address may not crowd out everyone else's.
  router.use(
    rateLimit({
      windowMs: 15 * 60_000,
      limit: 100,
      handler: (_req, res) => sendPage(res, 429, errorPage('Too many authorization requests. Wait a few minutes and try again.')),
    }),
  );
  const handle = async (req: Request, res: Response) => {
    try {
      const [client, params] = await authorizationRequest(provider, (req.method === 'POST' ? req.body : req.query) ?? {});
      await provider.authorize(client, params, res);
    } catch (error) {
      if (!(error instanceof OAuthError)) throw error;
      sendPage(res, 400, refusedRequestPage(error.errorCode, error.message));
    }
  };
  router
    .route('/')
    .get(handle)
    .post(handle)
    .all((_req, res) => {
      res.set('Allow', 'GET, POST').status(405).end();
    });
  return router;
}
