import { setTimeout as sleep } from 'node:timers/promises';
import { expect } from 'chai';
import { ConfigError, loadConfig } from '../../server/config.js';
import { LoginThrottle } from '../../server/auth/login-throttle.js';
import { tempDir } from '../helpers/temp-dir.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';
import { authorizeUrl, Browser, newClientId, PASSWORD, pkce, readForm, registerClient, userWithPassword } from '../server/oauth/flow.js';

interface Answer {
  status: number;
  alert?: string;
  retryAfter: number;
}

async function answer(res: Response): Promise<Answer> {
  const alert = /role="alert">([^<]*)</.exec(await res.text())?.[1];
  return { status: res.status, alert, retryAfter: Number(res.headers.get('retry-after') ?? 0) };
}

/** A browser at `from`: the address the proxy in front of the server reports. */
const browserAt = (from?: string) => new Browser(from ? { 'x-forwarded-for': from } : {});

/** The account area's form, filled in once. Success is a 303 to the account. */
async function accountSignIn(server: TestServer, user: string, password: string, from?: string): Promise<Answer> {
  const browser = browserAt(from);
  const { action, hidden } = readForm(await (await browser.get(`${server.url}/account/signin`)).text());
  return answer(await browser.post(new URL(action, server.url).href, [...hidden, ['username', user], ['password', password]]));
}

/** A brand-new authorization request's sign-in form, ready to post. Success is the consent page (200). */
async function oauthForm(
  server: TestServer,
  clientId: string,
  from?: string,
): Promise<(user: string, password: string) => Promise<Answer>> {
  const browser = browserAt(from);
  const { action, hidden } = readForm(
    await (await browser.get(authorizeUrl(server, { client_id: clientId, code_challenge: pkce().challenge }))).text(),
  );
  return async (user, password) => answer(await browser.post(action, [...hidden, ['username', user], ['password', password]]));
}

const LOCKED = 'Too many failed sign-ins. Try again in 15 minutes.';

describe('attack: password guessing through the sign-in forms', function () {
  this.timeout(60_000);
  let server: TestServer;
  let clientId: string;
  const oauthSignIn = async (user: string, password: string, from?: string) => (await oauthForm(server, clientId, from))(user, password);

  before(async () => {
    server = await startTestServer({ QUIRE_TRUST_PROXY: 'loopback' });
    await userWithPassword(server, 'ann');
    clientId = await newClientId(server);
  });
  after(() => server.stop());

  it('bounds guesses at an account from one address, however many authorization requests are opened', async () => {
    for (let i = 0; i < 5; i++) expect((await oauthSignIn('ann', `guess ${i}`, '198.51.100.1')).status).to.equal(401);
    const blocked = await oauthSignIn('ann', PASSWORD, '198.51.100.1');
    expect(blocked).to.include({ status: 429, alert: LOCKED });
    expect(blocked.retryAfter).to.be.within(1, 900);
  });

  it('counts a burst of parallel guesses before checking any, so it gets no more than the limit', async () => {
    const forms = await Promise.all(Array.from({ length: 12 }, () => oauthForm(server, clientId, '198.51.100.2')));
    const statuses = (await Promise.all(forms.map((submit, i) => submit('ann', `burst ${i}`)))).map((a) => a.status);
    expect(statuses.filter((s) => s === 401)).to.have.length(5);
    expect(statuses.filter((s) => s === 429)).to.have.length(7);
  });

  it('does not let failures from one address lock the owner out at another', async () => {
    for (let i = 0; i < 5; i++) await accountSignIn(server, 'ann', `guess ${i}`, '198.51.100.3');
    expect((await accountSignIn(server, 'ann', PASSWORD, '198.51.100.3')).status).to.equal(429);
    expect((await accountSignIn(server, 'ann', PASSWORD, '198.51.100.4')).status).to.equal(303);
    expect((await oauthSignIn('ann', PASSWORD, '198.51.100.4')).status).to.equal(200);
  });

  it('caps one address across many names, existing or not, on both forms', async () => {
    for (let i = 0; i < 20; i++) {
      const attempt =
        i % 2 ? oauthSignIn(`name-${i}`, 'guess', '198.51.100.5') : accountSignIn(server, `name-${i}`, 'guess', '198.51.100.5');
      expect((await attempt).status).to.equal(401);
    }
    expect(await accountSignIn(server, 'ann', PASSWORD, '198.51.100.5')).to.include({ status: 429, alert: LOCKED });
    expect(await oauthSignIn('ann', PASSWORD, '198.51.100.5')).to.include({ status: 429, alert: LOCKED });
    expect((await accountSignIn(server, 'ann', PASSWORD, '198.51.100.6')).status).to.equal(303);
  });

  it('shares one budget between the two forms, and throttles both with the same answer', async () => {
    for (let i = 0; i < 3; i++) expect((await accountSignIn(server, 'ann', `guess ${i}`, '198.51.100.7')).status).to.equal(401);
    for (let i = 0; i < 2; i++) expect((await oauthSignIn('ANN ', `guess ${i}`, '198.51.100.7')).status).to.equal(401);
    const account = await accountSignIn(server, 'ann', PASSWORD, '198.51.100.7');
    const oauth = await oauthSignIn('ann', PASSWORD, '198.51.100.7');
    expect(account).to.include({ status: 429, alert: LOCKED });
    expect(oauth).to.include({ status: 429, alert: LOCKED });
    expect(account.retryAfter).to.be.greaterThan(0);
    expect(oauth.retryAfter).to.be.greaterThan(0);
  });

  it('throttles a name without an account exactly like a real one', async () => {
    for (let i = 0; i < 5; i++)
      expect(await accountSignIn(server, 'nobody', `guess ${i}`, '198.51.100.8')).to.include({
        status: 401,
        alert: 'Wrong username or password.',
      });
    expect(await accountSignIn(server, 'nobody', 'guess', '198.51.100.8')).to.include({ status: 429, alert: LOCKED });
  });

  it("clears the account's count at that address when the right password is given", async () => {
    for (let i = 0; i < 4; i++) await accountSignIn(server, 'ann', `guess ${i}`, '198.51.100.9');
    expect((await accountSignIn(server, 'ann', PASSWORD, '198.51.100.9')).status).to.equal(303);
    for (let i = 0; i < 5; i++) expect((await accountSignIn(server, 'ann', `again ${i}`, '198.51.100.9')).status).to.equal(401);
    expect((await accountSignIn(server, 'ann', PASSWORD, '198.51.100.9')).status).to.equal(429);
  });

  it('lets an address try again once its window has passed', async () => {
    const throttle = new LoginThrottle(server.services.accounts, server.services.store.signinFailures, {
      perAccountAddress: 2,
      perAddress: 10,
      // Long enough that two password checks on a loaded machine stay inside it.
      windowMs: 1000,
    });
    for (let i = 0; i < 2; i++) expect(await throttle.signIn('ann', 'guess', '192.0.2.1')).to.include({ ok: false, status: 401 });
    expect(await throttle.signIn('ann', PASSWORD, '192.0.2.1')).to.include({ ok: false, status: 429, retryAfter: 1 });
    await sleep(1100);
    expect(await throttle.signIn('ann', PASSWORD, '192.0.2.1')).to.deep.equal({ ok: true, user: 'ann' });
  });
});

describe('attack: restarting the server to reset the sign-in throttle', function () {
  this.timeout(60_000);

  it('keeps a throttled address throttled after a restart on the same data folder', async () => {
    const data = tempDir('quire-throttle-data-');
    const start = () => startTestServer({ QUIRE_TRUST_PROXY: 'loopback' }, (config) => ({ ...config, dataDir: data.path }));
    try {
      const first = await start();
      try {
        await userWithPassword(first, 'ann');
        for (let i = 0; i < 20; i++) expect((await accountSignIn(first, `name-${i}`, 'guess', '198.51.100.20')).status).to.equal(401);
        expect((await accountSignIn(first, 'ann', PASSWORD, '198.51.100.20')).status).to.equal(429);
      } finally {
        await first.stop();
      }
      const again = await start();
      try {
        expect(await accountSignIn(again, 'ann', PASSWORD, '198.51.100.20')).to.include({ status: 429, alert: LOCKED });
        expect((await accountSignIn(again, 'ann', PASSWORD, '198.51.100.21')).status).to.equal(303);
      } finally {
        await again.stop();
      }
    } finally {
      data.cleanup();
    }
  });
});

describe('attack: spoofing X-Forwarded-For (QUIRE_TRUST_PROXY)', function () {
  this.timeout(60_000);

  it('ignores X-Forwarded-For when not set: a made-up address buys no fresh budget', async () => {
    const server = await startTestServer();
    try {
      await userWithPassword(server, 'ann');
      for (let i = 0; i < 5; i++) expect((await accountSignIn(server, 'ann', 'guess', `10.0.0.${i}`)).status).to.equal(401);
      expect((await accountSignIn(server, 'ann', PASSWORD, '10.0.0.99')).status).to.equal(429);
    } finally {
      await server.stop();
    }
  });

  it('keys the OAuth registration limit by the forwarded address when the proxy is trusted', async () => {
    const server = await startTestServer({ QUIRE_TRUST_PROXY: 'loopback', QUIRE_OAUTH_REGISTRATIONS_PER_HOUR: '20' });
    try {
      const register = (from: string) =>
        fetch(`${server.url}/oauth/register`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-forwarded-for': from },
          body: JSON.stringify({ client_name: 'App', redirect_uris: ['https://app.example/cb'] }),
        });
      for (let i = 0; i < 20; i++) expect((await register('203.0.113.1')).status).to.equal(201);
      expect((await register('203.0.113.1')).status).to.equal(429);
      expect((await register('203.0.113.2')).status).to.equal(201);
      // The proxy itself (no forwarded address) is yet another client.
      expect((await registerClient(server)).status).to.equal(201);
    } finally {
      await server.stop();
    }
  });

  it('takes what express takes, and lists a bad value with the other start-up problems', () => {
    const trust = (value?: string) => loadConfig({ QUIRE_TRUST_PROXY: value }).trustProxy;
    expect(trust()).to.equal(false);
    expect(trust('true')).to.equal(true);
    expect(trust('2')).to.equal(2);
    expect(trust('loopback, 10.0.0.0/8, fd00::/8')).to.deep.equal(['loopback', '10.0.0.0/8', 'fd00::/8']);
    const error = (() => {
      try {
        loadConfig({ QUIRE_TRUST_PROXY: 'loopback, 10.0.0.0/33, proxy.internal', QUIRE_WATCH: 'sometimes' });
      } catch (err) {
        return err;
      }
    })();
    expect(error).to.be.instanceOf(ConfigError);
    expect((error as ConfigError).problems).to.have.length(2);
    expect((error as ConfigError).problems.join('\n')).to.match(/^QUIRE_TRUST_PROXY .*: 10\.0\.0\.0\/33, proxy\.internal$/m);
  });
});
