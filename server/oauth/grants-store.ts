import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { InvalidGrantError, InvalidScopeError, InvalidTargetError } from '@modelcontextprotocol/sdk/server/auth/errors.js';
import type { OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import { JsonFile } from '../accounts/json-file.js';
import { hashSecret, newToken } from '../accounts/secrets.js';

/** Token prefixes differ from API keys (`quire_`), so REST can tell them apart unseen. */
export const ACCESS_PREFIX = 'qat_';
export const REFRESH_PREFIX = 'qrt_';
const CODE_PREFIX = 'qac_';

export const LIFETIME_MS = { code: 2 * 60_000, access: 60 * 60_000, refresh: 30 * 24 * 60 * 60_000 };
const LAST_USED_EVERY_MS = 60_000;
const CODE_REPLAYED = 'Authorization code was already used; the tokens it produced are revoked';

/** One approval by one user for one client: the family every token it yields belongs to. */
export interface OAuthGrant {
  id: string;
  user: string;
  client_id: string;
  client_name: string;
  scopes: string[];
  /** The agent the user chose for this app on the consent page; absent = the user themself. */
  agent?: string;
  /** The audience of its tokens. */
  resource: string;
  created_at: string;
  last_used_at?: string;
}

export interface CodeRequest {
  client_id: string;
  client_name: string;
  user: string;
  scopes: string[];
  resource: string;
  redirect_uri: string;
  challenge: string;
  agent?: string;
}

interface CodeRecord extends CodeRequest {
  hash: string;
  expires_at: number;
  /** Set when redeemed: a second redemption revokes this grant. */
  grant_id?: string;
}

interface TokenRecord {
  hash: string;
  kind: 'access' | 'refresh';
  grant_id: string;
  scopes: string[];
  expires_at: number;
  /** A refresh token that was exchanged; presenting it again revokes the family. */
  rotated?: boolean;
}

interface GrantsDoc {
  version: 1;
  grants: OAuthGrant[];
  codes: CodeRecord[];
  tokens: TokenRecord[];
}

export interface VerifiedAccess {
  grant: OAuthGrant;
  scopes: string[];
  expiresAt: number;
}

/**
 * Authorization codes, grants and tokens in `<data>/oauth-grants.json`. Only hashes of codes
 * and tokens are stored. Revoking a grant deletes its tokens, and since every check reads
 * the current file, they stop working at once.
 */
export class OAuthGrants {
  private readonly file: JsonFile<GrantsDoc>;
  private readonly tokenIndex = new WeakMap<GrantsDoc, Map<string, TokenRecord>>();
  private readonly lastTouch = new Map<string, number>();

  constructor(dataDir: string, private readonly now: () => number = Date.now) {
    this.file = new JsonFile<GrantsDoc>(join(dataDir, 'oauth-grants.json'), () => ({ version: 1, grants: [], codes: [], tokens: [] }));
  }

  async issueCode(request: CodeRequest): Promise<string> {
    const code = newToken(CODE_PREFIX);
    await this.update((doc) => {
      doc.codes.push({ ...request, hash: hashSecret(code), expires_at: this.now() + LIFETIME_MS.code });
    });
    return code;
  }

  /** The PKCE challenge of a live, unused code. A replayed code revokes what it produced. */
  async codeChallenge(clientId: string, code: string): Promise<string> {
    const record = this.findCode(this.file.read(), clientId, code);
    if (record?.grant_id) await this.replayedCode(clientId, code);
    if (!record) throw new InvalidGrantError('Unknown or expired authorization code');
    return record.challenge;
  }

  async exchangeCode(clientId: string, code: string, redirectUri: string | undefined, resource: string | undefined): Promise<OAuthTokens> {
    const outcome = await this.update((doc) => {
      const record = this.findCode(doc, clientId, code);
      if (!record) throw new InvalidGrantError('Unknown or expired authorization code');
      if (record.grant_id) {
        this.dropGrant(doc, record.grant_id);
        return 'replayed' as const;
      }
      if (redirectUri !== undefined && redirectUri !== record.redirect_uri) throw new InvalidGrantError('redirect_uri does not match the authorization request');
      if (resource !== undefined && resource !== record.resource) throw new InvalidTargetError('resource does not match the authorization request');
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
      record.grant_id = grant.id;
      doc.grants.push(grant);
      return this.mint(doc, grant, grant.scopes);
    });
    if (outcome === 'replayed') throw new InvalidGrantError(CODE_REPLAYED);
    return outcome;
  }

  async refresh(clientId: string, refreshToken: string, scopes: string[] | undefined, resource: string | undefined): Promise<OAuthTokens> {
    const outcome = await this.update((doc) => {
      const token = this.index(doc).get(hashSecret(refreshToken));
      const grant = token && doc.grants.find((g) => g.id === token.grant_id);
      if (!token || token.kind !== 'refresh' || !grant || grant.client_id !== clientId || token.expires_at <= this.now()) {
        throw new InvalidGrantError('Unknown, expired or revoked refresh token');
      }
      if (token.rotated) {
        this.dropGrant(doc, grant.id);
        return 'replayed' as const;
      }
      if (resource !== undefined && resource !== grant.resource) throw new InvalidTargetError('resource does not match the grant');
      const wanted = scopes ?? token.scopes;
      if (wanted.some((s) => !token.scopes.includes(s))) throw new InvalidScopeError('A refresh cannot add scopes');
      token.rotated = true;
      return this.mint(doc, grant, wanted);
    });
    if (outcome === 'replayed') throw new InvalidGrantError('Refresh token was already used; every token of this grant is now revoked');
    return outcome;
  }

  /** The grant behind a live access token, or undefined. */
  verifyAccess(accessToken: string): VerifiedAccess | undefined {
    const doc = this.file.read();
    const token = this.index(doc).get(hashSecret(accessToken));
    if (!token || token.kind !== 'access' || token.expires_at <= this.now()) return undefined;
    const grant = doc.grants.find((g) => g.id === token.grant_id);
    if (!grant) return undefined;
    this.touch(grant.id);
    return { grant, scopes: token.scopes, expiresAt: token.expires_at };
  }

  /** RFC 7009: an access token alone, or a refresh token with its whole grant. Unknown → no-op. */
  async revokeToken(clientId: string, value: string): Promise<void> {
    await this.update((doc) => {
      const token = this.index(doc).get(hashSecret(value));
      const grant = token && doc.grants.find((g) => g.id === token.grant_id);
      if (!token || !grant || grant.client_id !== clientId) return;
      if (token.kind === 'refresh') this.dropGrant(doc, grant.id);
      else doc.tokens = doc.tokens.filter((t) => t !== token);
    });
  }

  /** The apps a user has connected (for the account area). */
  listForUser(user: string): OAuthGrant[] {
    return this.file.read().grants.filter((g) => g.user === user);
  }

  /** Disconnects an app: its tokens stop working at once. False when there is no such grant. */
  async revokeGrant(user: string, grantId: string): Promise<boolean> {
    return this.update((doc) => {
      if (!doc.grants.some((g) => g.id === grantId && g.user === user)) return false;
      this.dropGrant(doc, grantId);
      return true;
    });
  }

  private async replayedCode(clientId: string, code: string): Promise<never> {
    await this.update((doc) => {
      const grantId = this.findCode(doc, clientId, code)?.grant_id;
      if (grantId) this.dropGrant(doc, grantId);
    });
    throw new InvalidGrantError(CODE_REPLAYED);
  }

  private mint(doc: GrantsDoc, grant: OAuthGrant, scopes: string[]): OAuthTokens {
    const access = newToken(ACCESS_PREFIX);
    const refresh = newToken(REFRESH_PREFIX);
    const now = this.now();
    doc.tokens.push(
      { hash: hashSecret(access), kind: 'access', grant_id: grant.id, scopes, expires_at: now + LIFETIME_MS.access },
      { hash: hashSecret(refresh), kind: 'refresh', grant_id: grant.id, scopes: grant.scopes, expires_at: now + LIFETIME_MS.refresh },
    );
    return { access_token: access, token_type: 'Bearer', expires_in: LIFETIME_MS.access / 1000, refresh_token: refresh, scope: scopes.join(' ') };
  }

  private findCode(doc: GrantsDoc, clientId: string, code: string): CodeRecord | undefined {
    const hash = hashSecret(code);
    return doc.codes.find((c) => c.hash === hash && c.client_id === clientId && c.expires_at > this.now());
  }

  private dropGrant(doc: GrantsDoc, grantId: string): void {
    doc.grants = doc.grants.filter((g) => g.id !== grantId);
    doc.tokens = doc.tokens.filter((t) => t.grant_id !== grantId);
  }

  private index(doc: GrantsDoc): Map<string, TokenRecord> {
    let index = this.tokenIndex.get(doc);
    if (!index) {
      index = new Map(doc.tokens.map((t) => [t.hash, t]));
      this.tokenIndex.set(doc, index);
    }
    return index;
  }

  /** Every write also forgets what has expired, and grants left without a live token. */
  private update<R>(change: (doc: GrantsDoc) => R): Promise<R> {
    return this.file.update((doc) => {
      const result = change(doc);
      const now = this.now();
      doc.codes = doc.codes.filter((c) => c.expires_at > now);
      doc.tokens = doc.tokens.filter((t) => t.expires_at > now);
      const live = new Set(doc.tokens.map((t) => t.grant_id));
      doc.grants = doc.grants.filter((g) => live.has(g.id));
      // This document becomes the cached one: an index built while changing it is stale.
      this.tokenIndex.delete(doc);
      return result;
    });
  }

  /** "Last used" is a hint for the account area: written at most once a minute per grant. */
  private touch(grantId: string): void {
    const now = this.now();
    if (now - (this.lastTouch.get(grantId) ?? 0) < LAST_USED_EVERY_MS) return;
    this.lastTouch.set(grantId, now);
    this.file.update((doc) => {
      const grant = doc.grants.find((g) => g.id === grantId);
      if (grant) grant.last_used_at = new Date(now).toISOString();
    }).catch((err: Error) => console.error('quire: could not record OAuth grant use:', err.message));
  }
}
