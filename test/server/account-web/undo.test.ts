import { expect } from 'chai';
import type { Page } from 'playwright-core';
import { launchBrowser, type TestBrowser } from '../../helpers/browser.js';
import { startTestServer, type TestServer } from '../../helpers/test-server.js';
import { call, mcpClient } from '../mcp/mcp-client.js';
import { connectApp } from '../oauth/flow.js';
import { ownerViaFirstRun } from './session.js';

const GARDEN = 'Projects/Garden Plan.md';

/** "Undo everything it changed since …" on an agent, a connected app and a key, in real Chromium. */
describe('undoing an agent, app or key from the account area', function () {
  this.timeout(60_000);
  let server: TestServer;
  let browser: TestBrowser;
  let page: Page;
  let ownerKey: string;
  const account = (path = '/') => `${server.url}/account${path}`;

  async function read(path: string): Promise<{ status: number; content?: string; hash?: string }> {
    const res = await server.api(`/vault/page/${encodeURIComponent(path)}`, { key: ownerKey });
    return res.status === 200 ? { status: 200, ...((await res.json()) as { content: string; hash: string }) } : { status: res.status };
  }

  async function write(key: string, path: string, content: string): Promise<void> {
    const res = await server.api('/vault/page', { key, method: 'POST', json: { path, content } });
    expect(res.status, await res.clone().text()).to.be.oneOf([200, 201]);
  }

  before(async () => {
    server = await startTestServer();
    browser = await launchBrowser();
    page = await browser.page();
    await ownerViaFirstRun(server, browser, page);
    ownerKey = await server.key('owner', 'write', { name: 'owner-key' });
    await server.services.agents.put('owner', 'scribe', { mode: 'write', description: 'Drafts notes' });
  });

  after(async () => {
    await browser?.close();
    await server?.stop();
  });

  it('shows an agent’s plan first (changed back, deleted again, left as they are), then undoes it in one click', async () => {
    const agentKey = await server.key('owner', 'write', { agent: 'scribe', name: 'scribe-key' });
    const garden = (await read(GARDEN)).content!;
    await write(agentKey, GARDEN, `${garden}\n- Agent added <b>this</b> line\n`);
    await write(agentKey, 'Inbox/Agent note.md', '# Made by the agent\n');
    await write(agentKey, 'Inbox/Shared.md', 'first line\nsecond line by the agent\n');
    await write(ownerKey, 'Inbox/Shared.md', 'first line\nsecond line rewritten by me\n');

    await page.goto(account('/agents/scribe'));
    expect(await page.inputValue('#undo-since')).to.match(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}$/);
    await browser.screenshot(page, 'account-agent-undo-form');
    await page.getByRole('button', { name: 'Show what would be undone' }).click();
    await page.waitForURL(/\/account\/agents\/scribe\/undo\?since=/);
    expect(await page.textContent('h1')).to.equal('Undo changes by agent scribe');
    const changedBack = page.locator('section', { has: page.getByRole('heading', { name: /Changed back/ }) });
    expect(await changedBack.textContent()).to.contain(GARDEN);
    const deletedAgain = page.locator('section', { has: page.getByRole('heading', { name: /Deleted again/ }) });
    expect(await deletedAgain.textContent()).to.contain('Inbox/Agent note.md');
    const left = page.locator('section', { has: page.getByRole('heading', { name: 'Inbox/Shared.md' }) });
    expect(await left.textContent()).to.contain('changed since in the same lines');
    expect(await left.locator('.diff .add').allTextContents()).to.include('+second line by the agent');
    expect(await page.locator('main b').count()).to.equal(0);
    await browser.screenshot(page, 'account-agent-undo-plan');
    // A dry run: nothing changed yet.
    expect((await read('Inbox/Agent note.md')).status).to.equal(200);

    await page.getByRole('button', { name: 'Undo 2 changes' }).click();
    await page.waitForURL(account('/agents/scribe'));
    expect(await page.textContent('[role=status]')).to.match(
      /^Undid 2 changes by agent scribe since .* in one commit \([0-9a-f]{7}\): 1 changed back, 1 deleted, 0 brought back\. 1 page left as they are\.$/,
    );
    await browser.screenshot(page, 'account-agent-undone');
    expect((await read(GARDEN)).content).to.equal(garden);
    expect((await read('Inbox/Agent note.md')).status).to.equal(404);
    expect((await read('Inbox/Shared.md')).content).to.equal('first line\nsecond line rewritten by me\n');
  });

  it('says there is nothing to undo when the window holds no changes, and refuses a date that is not one', async () => {
    const later = new Date(Date.now() + 60_000).toISOString().slice(0, 16);
    await page.goto(account(`/agents/scribe/undo?since=${later}`));
    expect(await page.textContent('main')).to.contain(`Nothing to undo since ${later.replace('T', ' ')} UTC.`);
    expect(await page.getByRole('button', { name: /^Undo/ }).count()).to.equal(0);
    await browser.screenshot(page, 'account-undo-nothing');

    const bad = await page.goto(account('/agents/scribe/undo?since=yesterday'));
    expect(bad!.status()).to.equal(400);
    expect(await page.textContent('[role=alert]')).to.contain('Not a date and time: yesterday');
    expect((await page.goto(account('/agents/nobody/undo')))!.status()).to.equal(404);
  });

  it('undoes what a connected app wrote over MCP, from its row on the apps page', async () => {
    const app = await connectApp(server, { scope: 'mcp:read mcp:write', approval: { user: 'owner' } });
    const client = await mcpClient(server.url, { bearer: app.access_token });
    try {
      const made = await call(client, 'write_page', { path: 'Inbox/From the app.md', content: '# Written by an app\n' });
      expect(made.isError).to.not.equal(true);
    } finally {
      await client.close();
    }
    await page.goto(account('/apps'));
    await page.getByRole('link', { name: 'Undo changes by Test App' }).click();
    expect(await page.textContent('h1')).to.equal('Undo changes by Test App');
    expect(await page.textContent('main')).to.contain('Inbox/From the app.md');
    await browser.screenshot(page, 'account-app-undo-plan');
    await page.getByRole('button', { name: 'Undo 1 change' }).click();
    await page.waitForURL(account('/apps'));
    expect(await page.textContent('[role=status]')).to.match(
      /^Undid 1 change by Test App since .*: 0 changed back, 1 deleted, 0 brought back\.$/,
    );
    expect((await read('Inbox/From the app.md')).status).to.equal(404);
  });

  it('undoes what one API key changed, and fits a phone screen', async () => {
    const key = await server.key('owner', 'write', { name: 'laptop <sync>' });
    await write(key, 'Inbox/Laptop.md', 'from the laptop\n');
    await page.goto(account('/keys'));
    await page.getByRole('link', { name: 'Undo changes made with laptop <sync>' }).click();
    expect(await page.textContent('h1')).to.equal('Undo changes by key laptop <sync>');
    const phone = await browser.page();
    await phone.setViewportSize({ width: 390, height: 844 });
    await phone.goto(page.url());
    expect(await phone.evaluate(() => document.documentElement.scrollWidth)).to.be.at.most(390);
    await browser.screenshot(phone, 'account-undo-plan-phone');
    await phone.close();
    await page.getByRole('button', { name: 'Undo 1 change' }).click();
    await page.waitForURL(account('/keys'));
    expect((await read('Inbox/Laptop.md')).status).to.equal(404);
  });
});
