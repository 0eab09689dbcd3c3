import { expect } from 'chai';
import type { Page } from 'playwright-core';
import { launchBrowser, type TestBrowser } from '../../helpers/browser.js';
import { startTestServer, type TestServer } from '../../helpers/test-server.js';
import { listTools, newClientId, pkce, authorizeUrl, tokenRequest, userWithPassword, PASSWORD } from './flow.js';

const CURSOR = 'cursor://anysphere.cursor-mcp/oauth/callback';
const CURSOR_URIS = [CURSOR, 'https://www.cursor.com/agents/mcp/oauth/callback', 'http://localhost:8787/callback'];

/** A native app's consent in a real Chromium: the user sees which app the code goes to, and the browser is sent there. */
describe('consent for a native app (cursor://) in Chromium', function () {
  this.timeout(60_000);
  let server: TestServer;
  let browser: TestBrowser;
  let page: Page;

  before(async () => {
    [server, browser] = await Promise.all([startTestServer(), launchBrowser()]);
    await userWithPassword(server);
    page = await browser.page();
  });
  after(async () => {
    await browser?.close();
    await server?.stop();
  });

  it('names the app at cursor://… on the consent page and, once approved, sends the browser there with a code', async () => {
    const clientId = await newClientId(server, { client_name: 'Cursor', redirect_uris: CURSOR_URIS });
    const { verifier, challenge } = pkce();
    await page.goto(authorizeUrl(server, { client_id: clientId, redirect_uri: CURSOR, code_challenge: challenge }).href);
    await page.getByLabel('Username').fill('ann');
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('button', { name: 'Allow' }).waitFor();

    const warning = page.locator('p.warning');
    expect(await warning.innerText()).to.equal(`After you approve, this will open the app at ${CURSOR}.`);
    expect(await warning.locator('strong code').innerText()).to.equal(CURSOR);
    // Prominent: above the buttons, visible without scrolling, and not styled like body text.
    const box = (await warning.boundingBox())!;
    expect(box.y + box.height).to.be.below((await page.getByRole('button', { name: 'Allow' }).boundingBox())!.y);
    expect(box.y + box.height).to.be.below(page.viewportSize()!.height);
    const body = await page.locator('body').evaluate((el) => getComputedStyle(el).backgroundColor);
    expect(await warning.evaluate((el) => getComputedStyle(el).backgroundColor)).to.not.equal(body);
    await browser.screenshot(page, 'oauth-consent-cursor');

    // A custom scheme cannot load in a test browser: the redirect Chromium is told to follow is the proof.
    const redirect = page.waitForResponse((r) => r.request().method() === 'POST' && r.status() === 302);
    await page.getByRole('button', { name: 'Allow' }).click();
    const location = new URL((await redirect).headers().location);
    expect(`${location.protocol}//${location.host}${location.pathname}`).to.equal(CURSOR);
    expect(location.searchParams.get('state')).to.equal('state-1');
    const res = await tokenRequest(server, {
      grant_type: 'authorization_code',
      client_id: clientId,
      code: location.searchParams.get('code')!,
      code_verifier: verifier,
      redirect_uri: CURSOR,
    });
    expect(res.status).to.equal(200);
    expect((await listTools(server, (await res.json()).access_token)).status).to.equal(200);
  });
});
