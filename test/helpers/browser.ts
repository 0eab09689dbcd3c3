import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';

const CHROMIUM = process.env.QUIRE_CHROMIUM ?? '/usr/bin/chromium';
/**
 * Chromium keeps only the last --disable-features it is given, and playwright passes its own
 * list first: ours has to repeat it. RenderDocument (a new frame host for each navigation) and
 * the navigation predictors cost Chromium ~12% of its CPU in a loop of 30 form posts
 * (13.1 → 11.5 core-s).
 */
const DISABLED_FEATURES = [
  // playwright-core 1.65's own list
  'AvoidUnnecessaryBeforeUnloadCheckSync',
  'DestroyProfileOnBrowserClose',
  'HttpsUpgrades',
  'HttpsFirstBalancedModeAutoEnable',
  'LensOverlay',
  'MediaRouter',
  'PaintHolding',
  'ThirdPartyStoragePartitioning',
  'AvoidCorsURLLoaderRestartOnRedirect',
  'OptimizationHints',
  'NetworkTimeServiceQuerying',
  'PreconnectToSearch',
  // ours
  'site-per-process',
  'IsolateOrigins',
  'Translate',
  'RenderDocument',
  'BackForwardCache',
  'Prerender2',
  'NavigationPredictor',
  'AutofillServerCommunication',
  'LazyFrameLoading',
  'ProactivelySwapBrowsingInstance',
];
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
  `--disable-features=${DISABLED_FEATURES.join(',')}`,
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

/**
 * A parallel mocha worker runs file after file until it is ended, and playwright kills the
 * browser when the process exits: its Chromium is kept. Elsewhere (a serial run) the last
 * context to close closes it, or the process would not exit.
 */
const KEEP = process.env.MOCHA_WORKER_ID !== undefined;
let shared: Promise<Browser> | undefined;
let open = 0;

/**
 * Real Chromium (the Debian package), one per mocha worker, launched at first use: each file
 * launching its own spent about a second of CPU on it. Each call gets a fresh context (no
 * cookies or storage from other files, as a fresh profile had), shared by the file's tests.
 */
export async function launchBrowser(): Promise<TestBrowser> {
  shared ??= chromium.launch({ executablePath: CHROMIUM, headless: true, args: ARGS }).catch((err: unknown) => {
    shared = undefined;
    throw err;
  });
  const context = await (await shared).newContext({ viewport: { width: 1100, height: 800 } });
  open += 1;
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
      if (--open === 0 && !KEEP) await closeShared();
    },
  };
}

function closeShared(): Promise<void> | undefined {
  const browser = shared;
  shared = undefined;
  return browser?.then((b) => b.close());
}
