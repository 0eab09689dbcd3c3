import Database from 'better-sqlite3';
import { join } from 'node:path';
import { expect } from 'chai';
import { OAuthGrants, LIFETIME_MS } from '../../../server/oauth/grants-store.js';
import { DATABASE_FILE, openSqliteStore } from '../../../server/store/sqlite/sqlite-store.js';
import { SESSION_LIFETIME_MS, SessionStore } from '../../../server/auth/sessions.js';
import { tempDir } from '../../helpers/temp-dir.js';
import { codeRequest as request } from '../../helpers/code-request.js';

describe('expiry in the store', () => {
  const dir = tempDir('quire-expiry-');
  const store = openSqliteStore(dir.path);
  let now = Date.parse('2026-01-01T00:00:00Z');
  const rows = (table: string) => {
    const db = new Database(join(dir.path, DATABASE_FILE), { readonly: true });
    try {
      return (db.prepare(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n;
    } finally {
      db.close();
    }
  };
  after(async () => {
    await store.close();
    dir.cleanup();
  });

  it('stops finding a session the moment it expires, before any clean-up ran', async () => {
    const sessions = new SessionStore(store, () => now);
    const { token } = await sessions.create('ann');
    now += SESSION_LIFETIME_MS - 1;
    expect(await sessions.find(token)).to.include({ user: 'ann' });
    now += 1;
    expect(await sessions.find(token)).to.equal(undefined);
    expect(rows('sessions')).to.equal(1);
  });

  it('lists a connected app only while one of its tokens is live', async () => {
    const grants = new OAuthGrants(store, () => now);
    await grants.exchangeCode('c1', await grants.issueCode(request), undefined, undefined);
    expect(await grants.listForUser('ann')).to.have.length(1);
    now += LIFETIME_MS.refresh;
    expect(await grants.listForUser('ann')).to.deep.equal([]);
  });

  it('deletes only rows expired before the given time', async () => {
    await store.purgeExpired(now - LIFETIME_MS.refresh - 1);
    expect(rows('oauth_grants')).to.equal(1);
    await store.purgeExpired(now);
    for (const table of ['sessions', 'oauth_codes', 'oauth_tokens', 'oauth_grants']) expect(rows(table), table).to.equal(0);
  });
});
