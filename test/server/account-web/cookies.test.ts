import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import { hashSecret } from '../../../server/accounts/secrets.js';
import { DATABASE_FILE } from '../../../server/store/sqlite/sqlite-store.js';
import { startTestServer, type TestServer } from '../../helpers/test-server.js';
import { Browser, readForm } from '../oauth/flow.js';
import { PASSWORD } from './session.js';

/** Behind an https proxy the account area's cookies are Secure; sessions are stored hashed. */
describe('account cookies behind https', () => {
  let server: TestServer;

  before(async () => {
    server = await startTestServer({ QUIRE_ACCOUNT_URL: 'https://quire.example/account' });
    await server.services.accounts.addUser('ann', 'personal');
    await server.services.accounts.setPassword('ann', PASSWORD);
  });
  after(() => server.stop());

  it('marks the form and session cookies Secure and HttpOnly, and keeps only a hash of the session', async () => {
    const browser = new Browser();
    const form = await browser.get(`${server.url}/account/signin`);
    expect(form.headers.getSetCookie().join()).to.match(/^quire_form=[^;]+; Path=\/account; HttpOnly; Secure; SameSite=Strict$/);
    const { hidden } = readForm(await form.text());
    const signedIn = await browser.post(`${server.url}/account/signin`, [...hidden, ['username', 'ann'], ['password', PASSWORD]]);
    expect(signedIn.status).to.equal(303);
    const cookie = signedIn.headers.getSetCookie().find((c) => c.startsWith('quire_session='))!;
    expect(cookie).to.match(/; Path=\/account; Expires=[^;]+; HttpOnly; Secure; SameSite=Lax$/);
    const token = /^quire_session=([^;]+)/.exec(cookie)![1];
    const session = await server.services.store.sessions.byHash(hashSecret(token), Date.now());
    expect(session).to.include({ user: 'ann' });
    const stored = ['', '-wal'].map((suffix) => readFileSync(join(server.dataDir, DATABASE_FILE + suffix), 'latin1')).join('');
    expect(stored).to.contain(session!.id).and.not.contain(token);
  });

  it('refuses a post whose Origin is another site before looking at anything else', async () => {
    const res = await fetch(`${server.url}/account/signin`, {
      method: 'POST',
      headers: { origin: 'https://evil.example', 'content-type': 'application/x-www-form-urlencoded' },
      body: 'username=ann&password=x',
      redirect: 'manual',
    });
    expect(res.status).to.equal(403);
    expect(await res.text()).to.contain('That request was refused');
    const sameOrigin = await fetch(`${server.url}/account/signin`, {
      method: 'POST',
      headers: { origin: 'https://quire.example', 'content-type': 'application/x-www-form-urlencoded' },
      body: 'username=ann&password=x',
      redirect: 'manual',
    });
    // Past the origin check, the missing form token still refuses it.
    expect(sameOrigin.status).to.equal(403);
    expect(await sameOrigin.text()).to.contain('That form was refused');
  });
});
