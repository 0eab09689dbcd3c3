import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { hashPassword, hashSecret } from '../../../server/accounts/secrets.js';

/** The secrets behind the hashes in the legacy files, as a client of the old server held them. */
export const LEGACY = {
  key: 'quire_legacyWriteKey0000000000000000000000000000',
  deviceKey: 'quire_legacyDeviceKey000000000000000000000000000',
  session: 'qss_legacySession00000000000000000000000000000',
  access: 'qat_legacyAccess0000000000000000000000000000000',
  refresh: 'qrt_legacyRefresh000000000000000000000000000000',
  link: 'qsl_legacyLink00000000000000000000000000000000',
  cursor: 'a'.repeat(40),
  password: 'correct horse battery',
};

const write = (dataDir: string, name: string, doc: unknown) => writeFileSync(join(dataDir, name), `${JSON.stringify(doc, null, 2)}\n`);

/**
 * A data folder as the JSON stores of 0.1 left it: every file they wrote, in their exact
 * shapes (`JSON.stringify(doc, null, 2)`), with one of each record. `mcpResource` is the
 * audience the OAuth grant was issued for.
 */
export async function writeLegacyData(dataDir: string, mcpResource: string, now = Date.now()): Promise<void> {
  const at = new Date(now - 60_000).toISOString();
  const day = 24 * 60 * 60_000;
  write(dataDir, 'accounts.json', {
    version: 1,
    users: { ann: { name: 'ann', plan: 'personal', created_at: at, password: await hashPassword(LEGACY.password) } },
    keys: [
      { id: 'key_000000000001', user: 'ann', name: 'laptop', scope: 'write', device: false, hash: hashSecret(LEGACY.key), created_at: at },
      {
        id: 'key_000000000002',
        user: 'ann',
        name: 'phone',
        scope: 'read',
        device: true,
        agent: 'scribe',
        hash: hashSecret(LEGACY.deviceKey),
        created_at: at,
      },
    ],
  });
  write(dataDir, 'key-usage.json', {
    key_000000000001: { last_used_at: at },
    key_000000000002: { last_used_at: at, cursor: LEGACY.cursor, cursor_at: at },
    key_revokedlong: { last_used_at: at },
  });
  write(dataDir, 'agents.json', {
    version: 1,
    agents: {
      ann: {
        scribe: {
          name: 'scribe',
          description: 'Drafts notes',
          mode: 'propose',
          read: [''],
          write: ['drafts/'],
          created_at: at,
          updated_at: at,
        },
      },
    },
  });
  write(dataDir, 'sessions.json', {
    version: 1,
    sessions: [
      { id: 'ses_000000000001', user: 'ann', hash: hashSecret(LEGACY.session), csrf: 'csrf-token', created_at: at, expires_at: now + day },
    ],
  });
  write(dataDir, 'signin-links.json', { version: 1, links: [{ hash: hashSecret(LEGACY.link), user: 'ann', expires_at: now + day }] });
  write(dataDir, 'oauth-clients.json', {
    version: 1,
    clients: {
      'client-1': {
        redirect_uris: ['http://127.0.0.1:9/callback'],
        client_name: 'Old Assistant',
        client_id: 'client-1',
        client_id_issued_at: Math.floor(now / 1000) - 60,
        token_endpoint_auth_method: 'none',
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
      },
    },
  });
  write(dataDir, 'oauth-grants.json', {
    version: 1,
    grants: [
      {
        id: 'grant_0000000000000001',
        user: 'ann',
        client_id: 'client-1',
        client_name: 'Old Assistant',
        scopes: ['mcp:read'],
        resource: mcpResource,
        created_at: at,
      },
    ],
    codes: [],
    tokens: [
      {
        hash: hashSecret(LEGACY.access),
        kind: 'access',
        grant_id: 'grant_0000000000000001',
        scopes: ['mcp:read'],
        expires_at: now + 60 * 60_000,
      },
      {
        hash: hashSecret(LEGACY.refresh),
        kind: 'refresh',
        grant_id: 'grant_0000000000000001',
        scopes: ['mcp:read'],
        expires_at: now + 30 * day,
      },
    ],
  });
}
