import { readFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import type { Page } from 'playwright-core';
import { launchBrowser, type TestBrowser } from '../../helpers/browser.js';
import { startTestServer, type TestServer } from '../../helpers/test-server.js';
import { ownerViaFirstRun, signIn } from './session.js';

/** End to end in real Chromium: the owner of a first-run server manages everything from the account area. */
describe('account area in the browser', function () {
  this.timeout(60_000);
  let server: TestServer;
  let browser: TestBrowser;
  let page: Page;
  const cspViolations: string[] = [];
  const account = (path = '/') => `${server.url}/account${path}`;

  before(async () => {
    server = await startTestServer();
    browser = await launchBrowser();
    page = await browser.page();
    page.on('console', (message) => {
      if (/Content.Security.Policy/i.test(message.text())) cspViolations.push(message.text());
    });
    await ownerViaFirstRun(server, browser, page);
  });

  after(async () => {
    await browser?.close();
    await server?.stop();
  });

  it('lands on the vault overview after the one-time link, with page count, health, clone URL and usage', async () => {
    await page.goto(account('/'));
    expect(await page.getByRole('heading', { name: 'Your vault' }).isVisible()).to.equal(true);
    const text = await page.textContent('main');
    expect(text).to.contain('Pages');
    expect(text).to.match(/Search index is up to date/);
    expect(await page.inputValue('#clone')).to.equal(`git clone ${server.url}/vault.git`);
    expect(text).to.contain('Plan personal');
    await browser.screenshot(page, 'account-vault');

    const download = page.waitForEvent('download');
    await page.getByRole('link', { name: 'Download as zip' }).click();
    const zip = await download;
    expect(zip.suggestedFilename()).to.match(/^vault-owner-[0-9a-f]{7}\.zip$/);
    const bytes = await readFile((await zip.path())!);
    expect(bytes.subarray(0, 4).toString('hex')).to.equal('504b0304');
  });

  it('signs out, refuses a wrong password without saying whether the user exists, and signs back in', async () => {
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL(/\/account\/signin\?out=1$/);
    await signIn(page, server, 'owner', 'wrong password');
    const wrongUser = await page.textContent('[role=alert]');
    await signIn(page, server, 'nobody-here', 'wrong password');
    expect(await page.textContent('[role=alert]'))
      .to.equal(wrongUser)
      .and.to.equal('Wrong username or password.');
    await browser.screenshot(page, 'account-signin-error');
    await page.goto(account('/keys'));
    expect(page.url()).to.equal(account('/signin'));
    await signIn(page, server, 'owner');
    await page.waitForURL(account('/'));
  });

  it('mints a key shown exactly once, which works on REST until it is revoked', async () => {
    await page.goto(account('/keys'));
    await page.getByLabel('Name').fill('browser-made');
    await page.getByLabel('Access').selectOption('write');
    await page.getByRole('button', { name: 'Create key' }).click();
    const key = await page.inputValue('#minted');
    expect(key).to.match(/^quire_/);
    expect(await page.textContent('main')).to.contain('you will not see this key again');
    // The copy button exists only when our hashed script runs, which the CSP must allow.
    await page.getByRole('button', { name: 'Copy' }).click();
    await page.getByRole('button', { name: 'Copied' }).waitFor({ timeout: 3000 });
    await browser.screenshot(page, 'account-key-minted');

    const ok = await server.api('/vault/pages', { key });
    expect(ok.status).to.equal(200);
    await page.goto(account('/keys'));
    expect(await page.content()).not.to.contain(key);
    const row = page.getByRole('row', { name: /browser-made/ });
    expect(await row.textContent()).to.match(/read \+ write/);

    await row.getByRole('link', { name: 'Revoke browser-made' }).click();
    await browser.screenshot(page, 'account-key-revoke-confirm');
    await page.getByRole('button', { name: 'Revoke key' }).click();
    await page.waitForURL(account('/keys'));
    expect(await page.textContent('[role=status]')).to.contain('browser-made revoked');
    const refused = await server.api('/vault/pages', { key });
    expect(refused.status).to.equal(401);
    expect((await server.services.accounts.keys('owner')).map((k) => k.name)).not.to.include('browser-made');
  });

  it('lists device keys with their last acknowledged cursor', async () => {
    const key = await server.key('owner', 'read', { device: true, name: 'phone' });
    const changes = (await (await server.api('/vault/changes', { key })).json()) as { cursor: string };
    expect((await server.api('/vault/changes/ack', { key, method: 'POST', json: { cursor: changes.cursor } })).status).to.equal(200);
    await page.goto(account('/devices'));
    const row = page.getByRole('row', { name: /phone/ });
    expect(await row.textContent()).to.contain(changes.cursor.slice(0, 10));
    await browser.screenshot(page, 'account-devices');
  });

  it('creates an agent, edits its mode and folders, and binds a key to it', async () => {
    await page.goto(account('/agents'));
    await page.getByLabel('Name').fill('scribe');
    await page.getByLabel('Description').fill('Drafts <b>notes</b> for me');
    await page.getByLabel('Read only').check();
    await page.getByLabel('May read').fill('Projects/\ncapture/');
    await page.getByRole('button', { name: 'Create agent' }).click();
    await page.waitForURL(account('/agents'));
    expect(await server.services.agents.get('owner', 'scribe')).to.include({ mode: 'read', description: 'Drafts <b>notes</b> for me' });
    expect(await page.textContent('main')).to.contain('Drafts <b>notes</b> for me');

    await page
      .getByRole('row', { name: /scribe/ })
      .getByRole('link', { name: 'Edit' })
      .click();
    await page.getByLabel('Propose changes for you to approve').check();
    await page.getByLabel('May read').fill('');
    await page.getByLabel('May change (or propose changes in)').fill('Projects/');
    await browser.screenshot(page, 'account-agent-edit');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.waitForURL(account('/agents'));
    expect(await server.services.agents.get('owner', 'scribe')).to.deep.include({ mode: 'propose', read: [''], write: ['Projects/'] });
    await browser.screenshot(page, 'account-agents');

    await page.goto(account('/keys'));
    expect(await page.locator('#key-agent option').allTextContents()).to.include('Agent scribe (propose)');
  });

  it('approves a proposal after showing its diff, and the page changes', async () => {
    const agentKey = await server.key('owner', 'write', { agent: 'scribe', name: 'scribe-key' });
    const path = 'Projects/Garden Plan.md';
    const before = (await (await server.api(`/vault/page/${encodeURIComponent(path)}`, { key: agentKey })).json()) as {
      content: string;
      hash: string;
    };
    const content = `${before.content}\n- Plant garlic in October\n`;
    const created = await server.api('/vault/proposals', {
      key: agentKey,
      method: 'POST',
      json: { title: 'Add garlic', rationale: 'Autumn planting was missing.', changes: [{ path, content, base_hash: before.hash }] },
    });
    expect(created.status).to.equal(201);

    await page.goto(account('/proposals'));
    expect(await page.textContent('main')).to.contain('1 waiting for your decision');
    await browser.screenshot(page, 'account-proposals');
    await page.getByRole('link', { name: 'Add garlic' }).click();
    expect(await page.locator('.diff .add').allTextContents()).to.include('+- Plant garlic in October');
    expect(await page.textContent('blockquote')).to.equal('Autumn planting was missing.');
    await browser.screenshot(page, 'account-proposal');
    await page.getByRole('button', { name: 'Approve and apply' }).click();
    await page.waitForURL(account('/proposals'));
    expect(await page.textContent('[role=status]')).to.contain('approved');

    const after = (await (await server.api(`/vault/page/${encodeURIComponent(path)}`, { key: agentKey })).json()) as { content: string };
    expect(after.content).to.equal(content);
  });

  it('shows a conflicting proposal as a conflict and keeps it pending when approval fails', async () => {
    const agentKey = await server.key('owner', 'write', { agent: 'scribe', name: 'scribe-key-2' });
    const ownerKey = await server.key('owner', 'write', { name: 'owner-key' });
    const path = 'Projects/Garden Plan.md';
    const page0 = (await (await server.api(`/vault/page/${encodeURIComponent(path)}`, { key: ownerKey })).json()) as {
      content: string;
      hash: string;
    };
    const lines = page0.content.split('\n');
    const last = lines.length - 2;
    const proposed = [...lines.slice(0, last), 'Proposed last line', ...lines.slice(last + 1)].join('\n');
    const made = (await (
      await server.api('/vault/proposals', {
        key: agentKey,
        method: 'POST',
        json: { title: 'Rewrite the end', changes: [{ path, content: proposed, base_hash: page0.hash }] },
      })
    ).json()) as { id: string };
    const direct = [...lines.slice(0, last), 'Owner edited this line', ...lines.slice(last + 1)].join('\n');
    expect(
      (await server.api('/vault/page', { key: ownerKey, method: 'POST', json: { path, content: direct, base_hash: page0.hash } })).status,
    ).to.equal(200);

    await page.goto(account(`/proposals/${made.id}`));
    expect(await page.textContent('main')).to.contain('This proposal conflicts');
    await browser.screenshot(page, 'account-proposal-conflict');
    await page.getByRole('button', { name: 'Approve and apply' }).click();
    await page.waitForURL(account(`/proposals/${made.id}`));
    expect(await page.textContent('[role=alert]')).to.match(/no longer applies/);
    const still = (await (await server.api(`/vault/proposals/${made.id}`, { key: ownerKey })).json()) as { status: string };
    expect(still.status).to.equal('pending');
    const current = (await (await server.api(`/vault/page/${encodeURIComponent(path)}`, { key: ownerKey })).json()) as { content: string };
    expect(current.content).to.equal(direct);
  });

  it('refuses a forged cross-site form post, and a same-site post without the form token', async () => {
    const before = (await server.services.accounts.keys('owner')).length;
    const evil: Server = createServer((_req, res) => {
      res.setHeader('content-type', 'text/html');
      res.end(
        `<form id="f" method="post" action="${account('/keys')}"><input name="name" value="stolen"><input name="scope" value="write"><input name="csrf" value="guess"></form><script>document.getElementById('f').submit()</script>`,
      );
    });
    await new Promise<void>((resolve) => evil.listen(0, '127.0.0.1', resolve));
    try {
      const attacker = await browser.page();
      // "localhost" is another site than "127.0.0.1": what a hostile page would be.
      const response = attacker.waitForResponse((r) => r.url() === account('/keys') && r.request().method() === 'POST');
      await attacker.goto(`http://localhost:${(evil.address() as AddressInfo).port}/`);
      expect((await response).status()).to.equal(403);
      await attacker.waitForLoadState();
      expect(await attacker.textContent('h1')).to.equal('That request was refused');
      await browser.screenshot(attacker, 'account-forged-post');
      await attacker.close();
    } finally {
      evil.close();
    }
    const cookie = (await browser.context.cookies(account('/'))).find((c) => c.name === 'quire_session')!;
    const noToken = await fetch(account('/keys'), {
      method: 'POST',
      redirect: 'manual',
      headers: { cookie: `quire_session=${cookie.value}`, 'content-type': 'application/x-www-form-urlencoded' },
      body: 'name=stolen2&scope=write',
    });
    expect(noToken.status).to.equal(403);
    expect((await server.services.accounts.keys('owner')).length).to.equal(before);
  });

  it('sends security headers on every page and escapes what users typed', async () => {
    const res = await page.goto(account('/agents'));
    const headers = res!.headers();
    expect(headers['content-security-policy'])
      .to.match(/frame-ancestors 'none'/)
      .and.match(/script-src 'sha256-/)
      .and.not.match(/unsafe-inline/);
    expect(headers['x-frame-options']).to.equal('DENY');
    expect(headers['referrer-policy']).to.equal('same-origin');
    expect(await page.locator('main b').count()).to.equal(0);
    expect(cspViolations).to.deep.equal([]);
  });

  it('fits a phone screen without sideways scrolling', async () => {
    const phone = await browser.page();
    await phone.setViewportSize({ width: 390, height: 844 });
    for (const path of ['/', '/keys', '/devices', '/apps', '/agents', '/proposals']) {
      await phone.goto(account(path));
      expect(await phone.evaluate(() => document.documentElement.scrollWidth), path).to.be.at.most(390);
    }
    await phone.goto(account('/keys'));
    await browser.screenshot(phone, 'account-keys-phone');
    await phone.close();
  });

  it('answers unknown pages and refused operations with a page that says why', async () => {
    const missing = await page.goto(account('/no-such-page'));
    expect(missing!.status()).to.equal(404);
    expect(await page.textContent('h1')).to.equal('Not found');
    const proposal = await page.goto(account('/proposals/no-such-id'));
    expect(proposal!.status()).to.equal(404);
    expect(await page.textContent('[role=alert]')).to.match(/No proposal no-such-id/);

    await page.goto(account('/agents/scribe'));
    await page.getByLabel('May read').fill('../outside');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.waitForURL(account('/agents/scribe'));
    expect(await page.textContent('[role=alert]')).to.match(/\.\./);
    await browser.screenshot(page, 'account-agent-error');
    expect((await server.services.agents.get('owner', 'scribe'))!.read).to.deep.equal(['']);
  });
});
