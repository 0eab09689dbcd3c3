import { setTimeout as sleep } from 'node:timers/promises';
import { hashBlob } from '../../vault-store/git/hash-blob.js';
import type { HttpClient } from './http-client.js';
import { SyncError } from './sync-error.js';

/** Who the key belongs to, from `GET /vault/whoami`. */
export interface Identity {
  user: string;
  /** The key's name: conflict copies carry it. */
  device: string;
  deviceKey: boolean;
  canWrite: boolean;
}

/** The server's files as of `cursor`: path → git blob id. */
export interface RemoteTree {
  cursor: string;
  files: Map<string, string>;
}

/** What changed after a cursor: path → its hash now, null when deleted. */
export interface RemoteChanges {
  cursor: string;
  changed: Map<string, string | null>;
}

/**
 * The vault as the sync client sees it. Everything the client asks of the server goes through
 * this port, so the transport (today the pages API; the file API for attachments) is swapped
 * here alone.
 */
export interface Remote {
  whoami(): Promise<Identity>;
  /** The paths this transport can carry; others are left alone on both sides. */
  accepts(path: string): boolean;
  snapshot(): Promise<RemoteTree>;
  /** Throws a SyncError with code CURSOR_UNKNOWN (410) when the history was rewritten. */
  changesSince(cursor: string): Promise<RemoteChanges>;
  /** Up to `readBatch` files; a path that vanished meanwhile is left out. */
  read(paths: string[]): Promise<Map<string, { hash: string; bytes: Uint8Array }>>;
  readonly readBatch: number;
  /** Writes when the server still has `base` (null: the file must not exist); returns the new hash. CONFLICT otherwise. */
  write(path: string, bytes: Uint8Array, base: string | null): Promise<string>;
  /** Deletes when the server still has `base`; a file already gone is no error. */
  remove(path: string, base: string): Promise<void>;
  ack(cursor: string): Promise<void>;
  /**
   * Resolves true as soon as the vault has a commit after `since`, or false after about
   * `waitMs` without one. Polls the change log every second for now; the long-poll
   * (`?wait=`) or the event stream replaces it here.
   */
  waitForChanges(since: string, waitMs: number, signal: AbortSignal): Promise<boolean>;
}

const PAGE = /^[^/].*\.md$/;
const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** A path in a URL: each segment percent-encoded. */
export function urlPath(path: string): string {
  return path.split('/').map(encodeURIComponent).join('/');
}

/**
 * The pages API as the transport: markdown pages only, content as JSON text. The file API
 * (`/vault/file/{path}`, `/vault/files`) replaces it to carry attachments too.
 */
export class PagesRemote implements Remote {
  readonly readBatch = 50;

  constructor(private readonly http: HttpClient) {}

  async whoami(): Promise<Identity> {
    const { body } = await this.http.request('GET', '/vault/whoami');
    const credential = body.credential as { name?: string; device?: boolean } | undefined;
    if (typeof body.user !== 'string' || !credential)
      throw new SyncError('server', 'The server answered /vault/whoami without a user: not a Quire server?');
    const scopes = Array.isArray(body.scopes) ? body.scopes : [];
    return {
      user: body.user,
      device: credential.name ?? 'device',
      deviceKey: credential.device === true,
      canWrite: scopes.includes('write'),
    };
  }

  accepts(path: string): boolean {
    // Pages only: ".md" files outside hidden folders (the server refuses dot-segments).
    return PAGE.test(path) && !path.split('/').some((segment) => segment.startsWith('.'));
  }

  async snapshot(): Promise<RemoteTree> {
    // Head first: what the listing adds after it comes again in the next changesSince(head).
    // Health names it; the change log without `since` would answer a device from its last
    // acknowledged cursor, which a rewritten history no longer has (410).
    const { body: health } = await this.http.request('GET', '/vault/health');
    const files = new Map<string, string>();
    let cursor: string | undefined;
    do {
      const query = `limit=1000${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
      const { body } = await this.http.request('GET', `/vault/pages?${query}`);
      for (const page of body.pages as { path: string; hash: string }[]) files.set(page.path, page.hash);
      cursor = (body.next_cursor as string | null) ?? undefined;
    } while (cursor);
    return { cursor: (health.index as { head: string }).head, files };
  }

  async changesSince(since: string): Promise<RemoteChanges> {
    const changed = new Map<string, string | null>();
    let cursor = since;
    for (;;) {
      const { body } = await this.http.request('GET', `/vault/changes?since=${cursor}&limit=1000`);
      for (const change of body.changes as { paths: { path: string; op: string; hash: string | null }[] }[]) {
        for (const entry of change.paths) changed.set(entry.path, entry.op === 'delete' ? null : entry.hash);
      }
      cursor = body.cursor as string;
      if (!body.has_more) return { cursor, changed };
    }
  }

  async read(paths: string[]): Promise<Map<string, { hash: string; bytes: Uint8Array }>> {
    const { body } = await this.http.request('POST', '/vault/pages/batch', { paths });
    const out = new Map<string, { hash: string; bytes: Uint8Array }>();
    for (const page of body.pages as { path: string; hash: string; content: string }[]) {
      const bytes = Buffer.from(page.content, 'utf8');
      // A page that is not UTF-8 does not survive JSON: its file comes with the file API.
      if (hashBlob(bytes) === page.hash) out.set(page.path, { hash: page.hash, bytes });
    }
    return out;
  }

  async write(path: string, bytes: Uint8Array, base: string | null): Promise<string> {
    let content: string;
    try {
      content = utf8.decode(bytes);
    } catch {
      throw new SyncError('refused', `${path} is not UTF-8 text; it will sync once the server's file API is used`, 'INVALID_REQUEST');
    }
    const { body } = await this.http.request('POST', '/vault/page', { path, content, base_hash: base });
    return body.hash as string;
  }

  async remove(path: string, base: string): Promise<void> {
    try {
      await this.http.request('DELETE', `/vault/page/${urlPath(path)}?base_hash=${base}`);
    } catch (err) {
      if (!(err instanceof SyncError && err.code === 'NOT_FOUND')) throw err;
    }
  }

  async ack(cursor: string): Promise<void> {
    await this.http.request('POST', '/vault/changes/ack', { cursor });
  }

  async waitForChanges(since: string, waitMs: number, signal: AbortSignal): Promise<boolean> {
    const until = Date.now() + waitMs;
    while (!signal.aborted && Date.now() < until) {
      const { body } = await this.http.request('GET', `/vault/changes?since=${since}&limit=1`);
      if (body.cursor !== since) return true;
      await sleep(POLL_MS, undefined, { signal }).catch(() => undefined);
    }
    return false;
  }
}

/** How often `waitForChanges` asks; each ask counts against the plan's `sync` bucket. */
const POLL_MS = 1000;
