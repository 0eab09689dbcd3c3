import { expect } from 'chai';
import type { Page } from 'playwright-core';
import { launchBrowser, type TestBrowser } from '../../helpers/browser.js';
import { startTestServer, type TestServer } from '../../helpers/test-server.js';
import { ownerViaFirstRun } from './session.js';

// A name that needs escaping in HTML and encoding in a query string; the page's words try markup.
const PATH = "Notes/Tom & Jerry's plan #1.md";
const V1 = '---\nstatus: draft\ntitle: "<script>alert(1)</script>"\n---\n# Plan\n\nFirst idea\n';
const V2 = '---\nstatus: doing\ntitle: "<script>alert(1)</script>"\n---\n# Plan\n\nFirst idea, refined\n<img src=x onerror=alert(1)>\n';
const V3 =
  '---\nstatus: done\ntitle: "<script>alert(1)</script>"\ntags: [garden]\n---\n# Plan\n\nFirst idea, refined\n<img src=x onerror=alert(1)>\nDone.\n';

/** A page's history, comparing versions, restoring one, and the recently deleted list, in real Chromium. */
describe('page history in the account area', function () {
  this.timeout(60_000);
  let server: TestServer;
  let browser: TestBrowser;
  let page: Page;
  let key: string;
  const account = (path = '/') => `${server.url}/account${path}`;
  const historyUrl = (path = PATH) => account(`/history?path=${encodeURIComponent(path)}`);
  /** Back on the page's history, however the redirect spelled its path. */
  const onHistory = (url: URL) => url.pathname === '/account/history' && url.searchParams.get('path') === PATH;

  async function write(content: string): Promise<void> {
    const res = await server.api('/vault/page', { key, method: 'POST', json: { path: PATH, content } });
    expect(res.status).to.be.oneOf([200, 201]);
  }
  async function read(): Promise<{ status: number; content?: string }> {
    const res = await server.api(`/vault/page/${encodeURIComponent(PATH)}`, { key });
    return res.status === 200 ? { status: 200, content: ((await res.json()) as { content: string }).content } : { status: res.status };
  }

  before(async () => {
    server = await startTestServer();
    browser = await launchBrowser();
    page = await browser.page();
    await ownerViaFirstRun(server, browser, page);
    key = await server.key('owner', 'write', { name: 'laptop' });
    for (const version of [V1, V2, V3]) await write(version);
  });

  after(async () => {
    await browser?.close();
    await server?.stop();
  });

  it('lists a page’s versions, and compares two of them as a rendered diff with front-matter changes', async () => {
    await page.goto(historyUrl());
    expect(await page.textContent('h1')).to.equal(`History of ${PATH}`);
    const rows = page.locator('tbody tr');
    expect(await rows.count()).to.equal(3);
    expect(await rows.nth(0).textContent())
      .to.contain('current')
      .and.contain('key laptop');
    expect(await rows.nth(2).textContent()).to.contain('created');
    await page
      .getByRole('radio', { name: /^Compare from/ })
      .nth(2)
      .check();
    await page.getByRole('button', { name: 'Compare selected versions' }).click();
    await page.waitForURL(/\/account\/history\/compare\?/);
    expect(await page.textContent('h1')).to.equal(`Changes to ${PATH}`);
    const fields = page.locator('table.fields tbody');
    expect(await fields.getByRole('row', { name: /status/ }).textContent()).to.match(/changed.*draft.*done/);
    expect(await fields.getByRole('row', { name: /tags/ }).textContent()).to.contain('added');
    expect(await page.locator('.diff .add').allTextContents()).to.include.members(['+<img src=x onerror=alert(1)>', '+Done.']);
    expect(await page.locator('.diff .del').allTextContents()).to.include('-First idea');
    expect(await page.locator('main img, main script').count()).to.equal(0);
    await browser.screenshot(page, 'account-history-compare');
  });

  it('restores an old version as a new change, carrying the version it replaces', async () => {
    await page.goto(historyUrl());
    await page
      .getByRole('button', { name: /^Restore the version of/ })
      .last()
      .click();
    await page.waitForURL(onHistory);
    expect(await page.textContent('[role=status]')).to.match(/restored to the version of commit [0-9a-f]{7}, as a new change/);
    expect((await read()).content).to.equal(V1);
    expect(await page.locator('tbody tr').count()).to.equal(4);
    await browser.screenshot(page, 'account-history');
  });

  it('refuses a restore over a version changed since the page was shown, and writes nothing', async () => {
    await page.goto(historyUrl());
    await write(V2);
    await page
      .getByRole('button', { name: /^Restore the version of/ })
      .last()
      .click();
    await page.waitForURL(onHistory);
    expect(await page.textContent('[role=alert]')).to.contain('changed after you opened this page, so nothing was restored');
    expect((await read()).content).to.equal(V2);
  });

  it('lists a deleted page under recently deleted and brings it back in one click', async () => {
    expect((await server.api(`/vault/page/${encodeURIComponent(PATH)}`, { key, method: 'DELETE' })).status).to.equal(200);
    await page.goto(historyUrl());
    expect(await page.textContent('main')).to.contain('This page is deleted');
    await page.goto(account('/deleted'));
    const row = page.getByRole('row', { name: /Tom & Jerry/ });
    expect(await row.textContent()).to.contain('key laptop');
    await browser.screenshot(page, 'account-deleted');
    await row.getByRole('button', { name: `Restore ${PATH}` }).click();
    await page.waitForURL(onHistory);
    expect(await page.textContent('[role=status]')).to.contain(`${PATH} is back`);
    expect((await read()).content).to.equal(V2);
    await page.goto(account('/deleted'));
    expect(await page.textContent('tbody')).to.contain('No deleted pages.');
  });

  it('shows recent activity and finds a page’s history from it; an unknown page says so', async () => {
    await page.goto(account('/history'));
    expect(await page.textContent('caption')).to.equal('Recent activity');
    expect(await page.getByRole('link', { name: PATH }).count()).to.be.greaterThan(0);
    await browser.screenshot(page, 'account-activity');
    await page.getByLabel('Page path').fill('Projects/Garden Plan.md');
    await page.getByRole('button', { name: 'Show its history' }).click();
    expect(await page.textContent('h1')).to.equal('History of Projects/Garden Plan.md');
    const missing = await page.goto(historyUrl('No/such page.md'));
    expect(missing!.status()).to.equal(404);
    expect(await page.textContent('[role=alert]')).to.contain('No/such page.md');
  });

  it('fits a phone screen', async () => {
    const phone = await browser.page();
    await phone.setViewportSize({ width: 390, height: 844 });
    const compare = account(`/history/compare?${new URLSearchParams({ path: PATH, from: 'HEAD~3' })}`);
    for (const url of [account('/history'), historyUrl(), account('/deleted'), compare]) {
      await phone.goto(url);
      expect(await phone.evaluate(() => document.documentElement.scrollWidth), url).to.be.at.most(390);
    }
    await phone.goto(historyUrl());
    await browser.screenshot(phone, 'account-history-phone');
    await phone.close();
  });
});
