import type { Page } from 'playwright-core';
import { firstRun } from '../../../scripts/first-run.js';
import type { TestBrowser } from '../../helpers/browser.js';
import type { TestServer } from '../../helpers/test-server.js';

export const PASSWORD = 'correct horse battery';

/** The first-run text's one-time link (the only place it appears). */
export function signinLink(text: string): string {
  const link = /(http\S+\/welcome\?token=\S+)/.exec(text)?.[1];
  if (!link) throw new Error(`no sign-in link in:\n${text}`);
  return link;
}

/** First run on the test server, then the owner follows the link and sets a password. */
export async function ownerViaFirstRun(server: TestServer, browser: TestBrowser, page: Page): Promise<string> {
  const text = await firstRun(server.services);
  if (!text) throw new Error('first run printed nothing');
  await page.goto(signinLink(text));
  await browser.screenshot(page, 'account-welcome');
  await page.getByLabel('New password').fill(PASSWORD);
  await page.getByLabel('Repeat it').fill(PASSWORD);
  await page.getByRole('button', { name: 'Set password and sign in' }).click();
  await page.waitForURL(`${server.url}/account/`);
  return text;
}

export async function signIn(page: Page, server: TestServer, user: string, password = PASSWORD): Promise<void> {
  await page.goto(`${server.url}/account/signin`);
  await page.getByLabel('Username').fill(user);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
}
