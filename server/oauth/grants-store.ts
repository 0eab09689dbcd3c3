import { randomBytes } from 'node:crypto';
import { InvalidGrantError, InvalidScopeError, InvalidTargetError } from '@modelcontextprotocol/sdk/server/auth/errors.js';
import type { OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import { hashSecret, newToken } from '../accounts/secrets.js';
import { silentLog, type Log } from '../../vault-store/log.js';
import type { CodeRequest, OAuthGrant, Store, TokenRecord } from '../store/store.js';

/** Token prefixes differ from API keys (`quire_`), so REST can tell them apart unseen. */
export const ACCESS_PREFIX = 'qat_';
export const REFRESH_PREFIX = 'qrt_';
const CODE_PREFIX = 'qac_';

export const LIFETIME_MS = { code: 2 * 60_000, access: 60 * 60_000, refresh: 30 * 24 * 60 * 60_000 };
const LAST_USED_EVERY_MS = 60_000;
const CODE_REPLAYED = 'Authorization code was already used; the tokens it produced are revoked';
const REFRESH_REPLAYED = 'Refresh token was already used; every token of this grant is now revoked';

export type { CodeRequest, OAuthGrant } from '../store/store.js';

export interface VerifiedAccess {
  grant: OAuthGrant;
  scopes: string[];
  expiresAt: number;
}

/**
 * Authorization codes, grants and tokens, in the store. Only hashes of codes and tokens are
 * stored. Revoking a grant deletes its tokens, and since every check asks the store, they
 * stop working at once. Expired codes and tokens are simply never found.
 */
export class OAuthGrants {
  private readonly lastTouch = new Map<string, number>();

  constructor(
    private readonly store: Store,
    private readonly now: () => number = Date.now,
    private readonly log: Log = silentLog,
  ) {}

  async issueCode(request: CodeRequest): Promise<string> {
    const code = newToken(CODE_PREFIX);
    await this.store.grants.addCode({ ...request, hash: hashSecret(code), expires_at: this.now() + LIFETIME_MS.code });
    return code;
  }

  /** The PKCE challenge of a live, unused code. A replayed code revokes what it produced. */
  async codeChallenge(clientId: string, code: string): Promise<string> {
    const record = await this.store.grants.code(hashSecret(code), clientId, this.now());
    if (!record) throw new InvalidGrantError('Unknown or expired authorization code');
    if (record.grant_id) return this.replayed(record.grant_id, CODE_REPLAYED);
    return record.challenge;
  }

  async exchangeCode(clientId: string, code: string, redirectUri: string | undefined, resource: string | undefined): Promise<OAuthTokens> {
    const hash = hashSecret(code);
    const record = await this.store.grants.code(hash, clientId, this.now());
    if (!record) throw new InvalidGrantError('Unknown or expired authorization code');
    if (record.grant_id) return this.replayed(record.grant_id, CODE_REPLAYED);
    if (redirectUri !== undefined && redirectUri !== record.redirect_uri)
      throw new InvalidGrantError('redirect_uri does not match the authorization request');
    if (resource !== undefined && resource !== record.resource)
      throw new InvalidTargetError('resource does not match the authorization request');
    const grant: OAuthGrant = {
      id: `grant_${randomBytes(8).toString('hex')}`,
      user: record.user,
      client_id: record.client_id,
      client_name: record.client_name,
      scopes: record.scopes,
      ...(record.agent ? { agent: record.agent } : {}),
      resource: record.resource,
      created_at: new Date(this.now()).toISOString(),
    };
    const { tokens, records } = this.mint(grant, grant.scopes);
    if (await this.store.grants.redeemCode(hash, grant, records)) return tokens;
    // Redeemed by a concurrent request between the read and the write: that is a replay too.
    const winner = await this.store.grants.code(hash, clientId, this.now());
    return this.replayed(winner?.grant_id, CODE_REPLAYED);
  }

  async refresh(clientId: string, refreshToken: string, scopes: string[] | undefined, resource: string | undefined): Promise<OAuthTokens> {
    const hash = hashSecret(refreshToken);
    const found = await this.store.grants.token(hash, this.now());
    if (!found || found.token.kind !== 'refresh' || found.grant.client_id !== clientId)
      throw new InvalidGrantError('Unknown, expired or revoked refresh token');
    const { token, grant } = found;
    if (token.rotated) return this.replayed(grant.id, REFRESH_REPLAYED);
    if (resource !== undefined && resource !== grant.resource) throw new InvalidTargetError('resource does not match the grant');
    const wanted = scopes ?? token.scopes;
    if (wanted.some((s) => !token.scopes.includes(s))) throw new InvalidScopeError('A refresh cannot add scopes');
    const { tokens, records } = this.mint(grant, wanted);
    if (!(await this.store.grants.rotate(hash, records))) return this.replayed(grant.id, REFRESH_REPLAYED);
    return tokens;
  }

  /** The grant behind a live access token, or undefined. */
  async verifyAccess(accessToken: string): Promise<VerifiedAccess | undefined> {
    const found = await this.store.grants.token(hashSecret(accessToken), this.now());
    if (!found || found.token.kind !== 'access') return undefined;
    this.touch(found.grant.id);
    return { grant: found.grant, scopes: found.token.scopes, expiresAt: found.token.expires_at };
  }

  /** RFC 7009: an access token alone, or a refresh token with its whole grant. Unknown → no-op. */
  async revokeToken(clientId: string, value: string): Promise<void> {
    const hash = hashSecret(value);
    const found = await this.store.grants.token(hash, this.now());
    if (!found || found.grant.client_id !== clientId) return;
    if (found.token.kind === 'refresh') await this.store.grants.removeGrant(found.grant.id);
    else await this.store.grants.removeToken(hash);
  }

  /** The apps a user has connected and that still hold a live token (for the account area). */
  listForUser(user: string): Promise<OAuthGrant[]> {
    return this.store.grants.listForUser(user, this.now());
  }

  /** Disconnects an app: its tokens stop working at once. False when there is no such grant. */
  revokeGrant(user: string, grantId: string): Promise<boolean> {
    return this.store.grants.removeGrant(grantId, user);
  }

  /** A replayed code or refresh token revokes the whole grant it belongs to. */
  private async replayed(grantId: string | undefined, message: string): Promise<never> {
    if (grantId) await this.store.grants.removeGrant(grantId);
    throw new InvalidGrantError(message);
  }

  private mint(grant: OAuthGrant, scopes: string[]): { tokens: OAuthTokens; records: TokenRecord[] } {
    const access = newToken(ACCESS_PREFIX);
    const refresh = newToken(REFRESH_PREFIX);
    const now = this.now();
    return {
      tokens: {
        access_token: access,
        token_type: 'Bearer',
        expires_in: LIFETIME_MS.access / 1000,
        refresh_token: refresh,
        scope: scopes.join(' '),
      },
      records: [
        { hash: hashSecret(access), kind: 'access', grant_id: grant.id, scopes, expires_at: now + LIFETIME_MS.access },
        { hash: hashSecret(refresh), kind: 'refresh', grant_id: grant.id, scopes: grant.scopes, expires_at: now + LIFETIME_MS.refresh },
      ],
    };
  }

  /** "Last used" is a hint for the account area: written at most once a minute per grant. */
  private touch(grantId: string): void {
    const now = this.now();
    if (now - (this.lastTouch.get(grantId) ?? 0) < LAST_USED_EVERY_MS) return;
    this.lastTouch.set(grantId, now);
    this.store.grants
      .touch(grantId, new Date(now).toISOString())
      .catch((err: Error) => this.log.warn({ err: err.message }, 'could not record OAuth grant use'));
  }
}
