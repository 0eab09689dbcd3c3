import { execFileSync } from 'node:child_process';
import { expect } from 'chai';
import { firstRun } from '../../../scripts/first-run.js';
import { closeServices, createServices } from '../../../server/services.js';
import { openSqliteStore } from '../../../server/store/sqlite/sqlite-store.js';
import { SigninLinks, SIGNIN_LINK_LIFETIME_MS } from '../../../server/auth/signin-links.js';
import { tempDir } from '../../helpers/temp-dir.js';
import { startTestServer, type TestServer } from '../../helpers/test-server.js';
import { Browser, readForm } from '../oauth/flow.js';
import { PASSWORD, signinLink } from './session.js';
import { cli } from '../../helpers/built-script.js';

/** Sets a password through a sign-in link, as a browser without scripts would. */
async function redeem(browser: Browser, link: string, password = PASSWORD): Promise<Response> {
  const form = await browser.get(link);
  if (form.status !== 200) return form;
  const { action, hidden } = readForm(await form.text());
  return browser.post(new URL(action, link).href, [...hidden, ['password', password], ['confirm', password]]);
}

describe('first run and one-time sign-in links', function () {
  this.timeout(30_000);
  let server: TestServer;

  beforeEach(async () => {
    server = await startTestServer();
  });
  afterEach(() => server.stop());

  it('prints the base URL, a sign-in link, a write key, a curl example and an MCP snippet, once', async () => {
    const text = (await firstRun(server.services))!;
    const key = /\n {2}(quire_\S+)\n/.exec(text)![1];
    expect(text).to.contain(`Server: ${server.url}`);
    expect(signinLink(text)).to.match(new RegExp(`^${server.url}/account/welcome\\?token=qsl_`));
    expect(text).to.contain(`curl -H "Authorization: Bearer ${key}" ${server.url}/vault/pages`);
    const snippet = JSON.parse(text.slice(text.indexOf('{'), text.lastIndexOf('}') + 1));
    expect(snippet).to.deep.equal({ mcpServers: { quire: { type: 'http', url: `${server.url}/mcp` } } });
    expect((await server.api('/vault/pages', { key })).status).to.equal(200);

    expect(await firstRun(server.services)).to.equal(undefined);
    // A fresh process on the same data folder (a second `npm start`) prints no secret either.
    const second = createServices(server.services.config);
    expect(await firstRun(second)).to.equal(undefined);
    await closeServices(second);
  });

  it('lets the link set a password once, signs the user in, and refuses it afterwards', async () => {
    const link = signinLink((await firstRun(server.services))!);
    const browser = new Browser();
    const done = await redeem(browser, link);
    expect(done.status).to.equal(303);
    expect(done.headers.get('location')).to.equal('/account/');
    expect(done.headers.getSetCookie().join()).to.match(
      /quire_session=qss_[^;]+; Max-Age=\d+; Path=\/account; Expires=[^;]+; HttpOnly; SameSite=Lax/,
    );
    expect((await browser.get(`${server.url}/account/`)).status).to.equal(200);
    expect(await server.services.accounts.checkPassword('owner', PASSWORD)).to.equal(true);

    const again = await redeem(new Browser(), link, 'another password');
    expect(again.status).to.equal(410);
    expect(await server.services.accounts.checkPassword('owner', PASSWORD)).to.equal(true);
  });

  it('refuses a welcome form posted without its form cookie', async () => {
    const link = signinLink((await firstRun(server.services))!);
    const { action, hidden } = readForm(await (await new Browser().get(link)).text());
    const res = await new Browser().post(new URL(action, link).href, [...hidden, ['password', PASSWORD], ['confirm', PASSWORD]]);
    expect(res.status).to.equal(403);
    expect(await server.services.accounts.checkPassword('owner', PASSWORD)).to.equal(false);
  });

  it('gives `quire user add` a link the running server accepts', async () => {
    const out = execFileSync(process.execPath, cli('user', 'add', 'erin', '--data', server.dataDir, '--base-url', server.url), {
      encoding: 'utf8',
    });
    expect(out).to.match(/created user erin/);
    const done = await redeem(new Browser(), signinLink(out));
    expect(done.status).to.equal(303);
    expect(await server.services.accounts.checkPassword('erin', PASSWORD)).to.equal(true);
  });

  it('expires links after a day, and a new link replaces the old one', async () => {
    const dir = tempDir();
    const store = openSqliteStore(dir.path);
    let now = 1_000_000;
    const links = new SigninLinks(store, () => now);
    const first = await links.create('ann');
    const second = await links.create('ann');
    expect(await links.peek(first)).to.equal(undefined);
    expect(await links.peek(second)).to.equal('ann');
    now += SIGNIN_LINK_LIFETIME_MS;
    expect(await links.redeem(second)).to.equal(undefined);
    await store.close();
    dir.cleanup();
  });
});
