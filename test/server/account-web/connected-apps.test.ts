import { expect } from 'chai';
import type { Page } from 'playwright-core';
import { launchBrowser, type TestBrowser } from '../../helpers/browser.js';
import { startTestServer, type TestServer } from '../../helpers/test-server.js';
import { LIST_TOOLS, rpc } from '../mcp/mcp-client.js';
import { authorizeUrl, newClientId, pkce, REDIRECT, tokenRequest } from '../oauth/flow.js';
import { ownerViaFirstRun, PASSWORD } from './session.js';

/** An MCP client approved on the consent page, then disconnected from the account area. */
describe('connected apps in the browser', function () {
  this.timeout(60_000);
  let server: TestServer;
  let browser: TestBrowser;
  let page: Page;

  before(async () => {
    server = await startTestServer();
    browser = await launchBrowser();
    page = await browser.page();
    await ownerViaFirstRun(server, browser, page);
    // The app's redirect URI: answer it instead of leaving the browser on a refused connection.
    await browser.context.route(`${REDIRECT}**`, (route) =>
      route.fulfill({ status: 200, contentType: 'text/plain', body: 'back in the app' }),
    );
  });

  after(async () => {
    await browser?.close();
    await server?.stop();
  });

  it('approves an app on the consent page, which then works on MCP until it is disconnected', async () => {
    const clientId = await newClientId(server, { client_name: 'Notes <Assistant>' });
    const { verifier, challenge } = pkce();
    await page.goto(authorizeUrl(server, { client_id: clientId, code_challenge: challenge, scope: 'mcp:read mcp:write' }).href);
    expect(await page.textContent('h1')).to.equal('Sign in to connect Notes <Assistant>');
    await browser.screenshot(page, 'oauth-signin');
    await page.getByLabel('Username').fill('owner');
    await page.getByLabel('Password').fill(PASSWORD);
    const consentPage = page.waitForResponse((r) => r.url().endsWith('/oauth/authorize/login'));
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('button', { name: 'Allow' }).waitFor();
    // The consent page has the account area's look and its headers: no framing, only our own style.
    const headers = (await consentPage).headers();
    expect(headers['content-security-policy'])
      .to.contain("frame-ancestors 'none'")
      .and.match(/style-src 'sha256-/);
    expect(headers['x-frame-options']).to.equal('DENY');
    await browser.screenshot(page, 'oauth-consent');
    await page.getByLabel('Create, change, move and delete pages (includes adding notes)').uncheck();
    await page.getByRole('button', { name: 'Allow' }).click();
    await page.waitForURL(`${REDIRECT}**`);
    const code = new URL(page.url()).searchParams.get('code')!;
    const tokens = (await (
      await tokenRequest(server, {
        grant_type: 'authorization_code',
        client_id: clientId,
        code,
        code_verifier: verifier,
        redirect_uri: REDIRECT,
      })
    ).json()) as { access_token: string; scope: string };
    expect(tokens.scope).to.equal('mcp:read');
    const bearer = { authorization: `Bearer ${tokens.access_token}` };
    expect((await rpc(server.url, LIST_TOOLS, bearer)).status).to.equal(200);

    await page.goto(`${server.url}/account/apps`);
    const row = page.getByRole('row', { name: /Notes <Assistant>/ });
    expect(await row.textContent())
      .to.contain('Read your pages')
      .and.not.contain('Create, change');
    await browser.screenshot(page, 'account-apps');
    await row.getByRole('link', { name: 'Disconnect Notes <Assistant>' }).click();
    await page.getByRole('button', { name: 'Disconnect' }).click();
    await page.waitForURL(`${server.url}/account/apps`);
    expect(await page.textContent('[role=status]')).to.equal('Notes <Assistant> disconnected.');
    expect(await page.textContent('tbody')).to.contain('No apps connected');
    expect((await rpc(server.url, LIST_TOOLS, bearer)).status).to.equal(401);
  });
});
