import { QuireError } from '../../vault-store/errors.js';
import type { Credential } from '../auth/credential.js';
import type { OAuthGrants } from '../oauth/grants-store.js';
import { invoke } from '../ops/invoke.js';
import type { AnyOperation } from '../ops/operation.js';
import type { Services } from '../services.js';
import type { CookieJar } from '../web/cookies.js';
import type { Session, SessionStore } from '../auth/sessions.js';
import type { SigninLinks } from '../auth/signin-links.js';

export interface Flash {
  kind: 'notice' | 'error';
  text: string;
}

/** Everything the account pages share, built once when the router is. */
export interface AccountArea {
  services: Services;
  catalog: AnyOperation[];
  grants: OAuthGrants;
  sessions: SessionStore;
  links: SigninLinks;
  cookies: CookieJar;
  /** Where the area is mounted on this server ("/account"): every link and form starts here. */
  path: string;
  origin: string;
  /** One message for the page after a redirect, by session id. In memory: it lives seconds. */
  flashes: Map<string, Flash>;
}

/** A signed-in request. */
export interface Visit {
  session: Session;
  user: string;
  flash?: Flash;
}

export const SESSION_COOKIE = 'quire_session';

/**
 * The account area acts as the signed-in person, not as an agent: read, capture and write,
 * like an unbound write key. Its commits say "account" and name the session.
 */
export function sessionCredential(session: Session): Credential {
  return {
    kind: 'session',
    user: session.user,
    id: session.id,
    label: 'account area',
    capabilities: new Set(['read', 'capture', 'write']),
    device: false,
  };
}

export function findOp(area: AccountArea, name: string): AnyOperation | undefined {
  return area.catalog.find((op) => op.name === name);
}

/**
 * Runs a catalog operation as the visitor through `invoke`, so plan, rate limits, input
 * validation and agent rules apply exactly as on REST. The account area is a REST client
 * for plan purposes.
 */
export async function callOp<R>(area: AccountArea, visit: Visit, name: string, input: Record<string, unknown> = {}): Promise<R> {
  const op = findOp(area, name);
  if (!op) throw new QuireError('NOT_IMPLEMENTED', `This server has no ${name} operation`);
  const { result } = await invoke(area.services, op, sessionCredential(visit.session), 'rest', input);
  return result as R;
}
