import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { tempDir } from './temp-dir.js';

const CHROMIUM = process.env.QUIRE_CHROMIUM ?? '/usr/bin/chromium';
const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  // One renderer for the few sites a test opens, and no background features: the account tests
  // spent seconds of CPU on processes and services no assertion looks at.
  '--disable-site-isolation-trials',
  '--disable-features=site-per-process,IsolateOrigins,Translate,MediaRouter,OptimizationHints',
  '--renderer-process-limit=2',
  '--mute-audio',
];
export const ARTIFACTS = join(process.cwd(), 'test-artifacts');

export interface TestBrowser {
  context: BrowserContext;
  /** A fresh tab. */
  page: () => Promise<Page>;
  /** Saves a full-page screenshot to test-artifacts/<name>.png (git-ignored) for a human to look at. */
  screenshot: (page: Page, name: string) => Promise<void>;
  close: () => Promise<void>;
}

/** Real Chromium (the Debian package) with a fresh profile; one per test file, shared by its tests. */
export async function launchBrowser(): Promise<TestBrowser> {
  const profile = tempDir('quire-chromium-');
  const context = await chromium.launchPersistentContext(profile.path, {
    executablePath: CHROMIUM,
    headless: true,
    args: ARGS,
    viewport: { width: 1100, height: 800 },
  });
  context.setDefaultTimeout(10_000);
  mkdirSync(ARTIFACTS, { recursive: true });
  return {
    context,
    page: () => context.newPage(),
    screenshot: async (page, name) => {
      await page.screenshot({ path: join(ARTIFACTS, `${name}.png`), fullPage: true });
    },
    close: async () => {
      await context.close();
      profile.cleanup();
    },
  };
}
