import type { Database } from 'better-sqlite3';
import type { OAuthClientInformationFull } from '@modelcontextprotocol/sdk/shared/auth.js';
import type { CodeRecord, GrantsStore, OAuthClientsStore, OAuthGrant, TokenRecord } from '../store.js';

type Nullable<T> = { [K in keyof T]-?: undefined extends T[K] ? Exclude<T[K], undefined> | null : T[K] };
type GrantRow = Omit<Nullable<OAuthGrant>, 'scopes'> & { scopes: string };
type CodeRow = Omit<Nullable<CodeRecord>, 'scopes'> & { scopes: string };
type TokenRow = Omit<TokenRecord, 'scopes' | 'rotated'> & { scopes: string; rotated: number };

/** Drops SQL NULLs, so records have the same optional fields as before. */
function defined<T extends object>(row: T): T {
  return Object.fromEntries(Object.entries(row).filter(([, v]) => v !== null)) as T;
}

const toGrant = (row: GrantRow): OAuthGrant => defined({ ...row, scopes: JSON.parse(row.scopes) }) as OAuthGrant;
const toCode = (row: CodeRow): CodeRecord => defined({ ...row, scopes: JSON.parse(row.scopes) }) as CodeRecord;
const toToken = ({ rotated, ...row }: TokenRow): TokenRecord => ({
  ...row,
  scopes: JSON.parse(row.scopes),
  ...(rotated ? { rotated: true } : {}),
});

/** Registered OAuth clients, and the codes, grants and tokens they obtain (hashes only). */
export function sqliteOAuth(db: Database): { oauthClients: OAuthClientsStore; grants: GrantsStore } {
  const q = {
    client: db.prepare<[string], { info: string }>('SELECT info FROM oauth_clients WHERE client_id = ?'),
    putClient: db.prepare(
      'INSERT INTO oauth_clients (client_id, info) VALUES (?, ?) ON CONFLICT (client_id) DO UPDATE SET info = excluded.info',
    ),
    addCode: db.prepare(
      'INSERT INTO oauth_codes (hash, client_id, client_name, user, scopes, resource, redirect_uri, challenge, agent, expires_at) VALUES (@hash, @client_id, @client_name, @user, @scopes, @resource, @redirect_uri, @challenge, @agent, @expires_at)',
    ),
    code: db.prepare<[string, string, number], CodeRow>('SELECT * FROM oauth_codes WHERE hash = ? AND client_id = ? AND expires_at > ?'),
    claimCode: db.prepare('UPDATE oauth_codes SET grant_id = ? WHERE hash = ? AND grant_id IS NULL'),
    addGrant: db.prepare(
      'INSERT INTO oauth_grants (id, user, client_id, client_name, scopes, agent, resource, created_at) VALUES (@id, @user, @client_id, @client_name, @scopes, @agent, @resource, @created_at)',
    ),
    addToken: db.prepare(
      'INSERT INTO oauth_tokens (hash, kind, grant_id, scopes, expires_at) VALUES (@hash, @kind, @grant_id, @scopes, @expires_at)',
    ),
    token: db.prepare<[string, number], TokenRow>('SELECT * FROM oauth_tokens WHERE hash = ? AND expires_at > ?'),
    grant: db.prepare<[string], GrantRow>('SELECT * FROM oauth_grants WHERE id = ?'),
    rotate: db.prepare("UPDATE oauth_tokens SET rotated = 1 WHERE hash = ? AND kind = 'refresh' AND rotated = 0"),
    removeToken: db.prepare('DELETE FROM oauth_tokens WHERE hash = ?'),
    removeGrant: db.prepare('DELETE FROM oauth_grants WHERE id = ? AND user = coalesce(?, user)'),
    grantsOf: db.prepare<[string, number], GrantRow>(
      'SELECT * FROM oauth_grants g WHERE user = ? AND EXISTS (SELECT 1 FROM oauth_tokens t WHERE t.grant_id = g.id AND t.expires_at > ?) ORDER BY g.rowid',
    ),
    touch: db.prepare('UPDATE oauth_grants SET last_used_at = ? WHERE id = ?'),
  };
  const insertTokens = (tokens: TokenRecord[]) => tokens.forEach((t) => q.addToken.run({ ...t, scopes: JSON.stringify(t.scopes) }));
  const redeem = db.transaction((hash: string, grant: OAuthGrant, tokens: TokenRecord[]) => {
    if (q.claimCode.run(grant.id, hash).changes !== 1) return false;
    q.addGrant.run({ agent: null, ...grant, scopes: JSON.stringify(grant.scopes) });
    insertTokens(tokens);
    return true;
  });
  const rotate = db.transaction((hash: string, tokens: TokenRecord[]) => {
    if (q.rotate.run(hash).changes !== 1) return false;
    insertTokens(tokens);
    return true;
  });
  return {
    oauthClients: {
      get: async (clientId) => {
        const row = q.client.get(clientId);
        return row && (JSON.parse(row.info) as OAuthClientInformationFull);
      },
      put: async (client) => {
        q.putClient.run(client.client_id, JSON.stringify(client));
      },
    },
    grants: {
      addCode: async (code) => {
        q.addCode.run({ agent: null, ...code, scopes: JSON.stringify(code.scopes) });
      },
      code: async (hash, clientId, now) => {
        const row = q.code.get(hash, clientId, now);
        return row && toCode(row);
      },
      redeemCode: async (hash, grant, tokens) => redeem.immediate(hash, grant, tokens),
      token: async (hash, now) => {
        const row = q.token.get(hash, now);
        const grant = row && q.grant.get(row.grant_id);
        return grant ? { token: toToken(row), grant: toGrant(grant) } : undefined;
      },
      rotate: async (hash, tokens) => rotate.immediate(hash, tokens),
      removeToken: async (hash) => {
        q.removeToken.run(hash);
      },
      removeGrant: async (id, user) => q.removeGrant.run(id, user ?? null).changes === 1,
      listForUser: async (user, now) => q.grantsOf.all(user, now).map(toGrant),
      touch: async (id, at) => {
        q.touch.run(at, id);
      },
    },
  };
}
