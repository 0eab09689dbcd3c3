import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import { LIFETIME_MS, OAuthGrants } from '../../../server/oauth/grants-store.js';
import { DATABASE_FILE, openSqliteStore } from '../../../server/store/sqlite/sqlite-store.js';
import { tempDir } from '../../helpers/temp-dir.js';
import { codeRequest as request } from '../../helpers/code-request.js';

describe('OAuthGrants lifetimes and storage', () => {
  const dir = tempDir();
  const store = openSqliteStore(dir.path);
  after(async () => {
    await store.close();
    dir.cleanup();
  });
  let now = Date.parse('2026-01-01T00:00:00Z');
  const grants = new OAuthGrants(store, () => now);

  it('lets a code expire after its short lifetime', async () => {
    const code = await grants.issueCode(request);
    now += LIFETIME_MS.code + 1;
    let error: Error | undefined;
    await grants.codeChallenge('c1', code).catch((err: Error) => (error = err));
    expect(error?.message).to.match(/expired/);
  });

  it('expires access tokens after an hour, while the refresh token still works', async () => {
    const tokens = await grants.exchangeCode('c1', await grants.issueCode(request), undefined, undefined);
    expect((await grants.verifyAccess(tokens.access_token))?.grant.user).to.equal('ann');
    now += LIFETIME_MS.access + 1;
    expect(await grants.verifyAccess(tokens.access_token)).to.equal(undefined);
    const fresh = await grants.refresh('c1', tokens.refresh_token!, undefined, undefined);
    expect((await grants.verifyAccess(fresh.access_token))?.scopes).to.deep.equal(['mcp:read']);
  });

  it('stores only hashes of codes and tokens', async () => {
    const code = await grants.issueCode(request);
    const tokens = await grants.exchangeCode('c1', code, undefined, undefined);
    await store.close();
    const file = readFileSync(join(dir.path, DATABASE_FILE), 'latin1');
    expect(file).to.include('grant_');
    for (const secret of [code, tokens.access_token, tokens.refresh_token!]) expect(file).to.not.include(secret);
  });
});
