import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { silentReporter, type Reporter } from '../../../scripts/sync/progress.js';
import { SyncClient } from '../../../scripts/sync/sync-client.js';
import { tempDir } from '../../helpers/temp-dir.js';
import { startTestServer, type TestServer } from '../../helpers/test-server.js';

/** Lines a sync reported, kept for assertions. */
export function recorder(): Reporter & { lines: string[] } {
  const lines: string[] = [];
  return { ...silentReporter, lines, line: (text) => void lines.push(text) };
}

/** One sync run in this process, as `quire sync DIR --once` does it. */
export async function syncOnce(server: TestServer, dir: string, key: string, opts: { report?: Reporter; now?: () => Date } = {}) {
  const client = await SyncClient.open({
    dir,
    server: server.url,
    key,
    report: opts.report ?? silentReporter,
    now: opts.now,
    attempts: 2,
    backoffMs: 10,
  });
  try {
    return await client.once();
  } finally {
    client.close();
  }
}

export function put(dir: string, path: string, text: string): void {
  mkdirSync(dirname(join(dir, path)), { recursive: true });
  writeFileSync(join(dir, path), text);
}

export function read(dir: string, path: string): string {
  return readFileSync(join(dir, path), 'utf8');
}

/** A running client's temp file (local-tree.ts): renamed over its target or removed at any moment. */
const CLIENT_TEMP = /\.quire-tmp-[0-9a-f]+$/;

/** A file's text, or undefined when a running client removed it between the listing and the read. */
function readIfThere(file: string): string | undefined {
  try {
    return readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
}

/** Every file of a folder (its state folder and a client's temp files left out): path → text. */
export function folderFiles(dir: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const name of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (!name.isFile()) continue;
    const path = join(name.parentPath, name.name).slice(dir.length + 1);
    if (path.startsWith('.quire-sync/') || CLIENT_TEMP.test(name.name)) continue;
    const text = readIfThere(join(dir, path));
    if (text !== undefined) out.set(path, text);
  }
  return out;
}

/** The vault's pages as the server has them: path → content. */
export async function serverPages(server: TestServer, key: string): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  let cursor = '';
  do {
    const list = (await (await server.api(`/vault/pages?limit=1000${cursor}`, { key })).json()) as {
      pages: { path: string }[];
      next_cursor: string | null;
    };
    for (let i = 0; i < list.pages.length; i += 50) {
      const paths = list.pages.slice(i, i + 50).map((p) => p.path);
      const batch = (await (await server.api('/vault/pages/batch', { method: 'POST', key, json: { paths } })).json()) as {
        pages: { path: string; content: string }[];
      };
      for (const page of batch.pages) out.set(page.path, page.content);
    }
    cursor = list.next_cursor ? `&cursor=${encodeURIComponent(list.next_cursor)}` : '';
  } while (cursor);
  return out;
}

export async function writePage(server: TestServer, key: string, path: string, content: string): Promise<void> {
  const res = await server.api('/vault/page', { method: 'POST', key, json: { path, content } });
  if (res.status >= 300) throw new Error(`write ${path}: ${res.status} ${await res.text()}`);
}

export async function deletePageOnServer(server: TestServer, key: string, path: string): Promise<void> {
  const res = await server.api(`/vault/page/${path}`, { method: 'DELETE', key });
  if (res.status >= 300) throw new Error(`delete ${path}: ${res.status} ${await res.text()}`);
}

export interface SyncSuite {
  server: TestServer;
  /** Empty folders, made afresh for each test. */
  dirs: string[];
  /** With `keys`: ana's write key, and her device key named "laptop". */
  owner: string;
  device: string;
}

/**
 * For each test of the calling suite: a fresh test server and `folders` empty folders, all
 * removed after it, handed to `take` (which copies what it needs into the suite's variables).
 */
export function syncSuite(take: (suite: SyncSuite) => void, options: { folders?: number; keys?: boolean } = {}): void {
  let server: TestServer;
  let made: { path: string; cleanup: () => void }[] = [];
  beforeEach(async () => {
    server = await startTestServer();
    made = Array.from({ length: options.folders ?? 1 }, () => tempDir('quire-sync-'));
    const keys = options.keys
      ? { owner: await server.key('ana', 'write'), device: await server.key('ana', 'write', { device: true, name: 'laptop' }) }
      : { owner: '', device: '' };
    take({ server, dirs: made.map((d) => d.path), ...keys });
  });
  afterEach(async () => {
    for (const dir of made) dir.cleanup();
    await server.stop();
  });
}
