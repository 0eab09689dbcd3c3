import { hashBlob } from '../../vault-store/git/hash-blob.js';
import { rm } from 'node:fs/promises';
import type { IncomingMessage } from 'node:http';
import { BIG_FILE_BYTES, sendChecked, type UploadBody } from './big-files.js';
import type { HttpClient, RequestBody } from './http-client.js';
import type { Fetched, Identity, Remote, RemoteChanges, RemoteTree, Spill } from './remote.js';
import { SyncError } from './sync-error.js';

/** A path in a URL: each segment percent-encoded. */
export function urlPath(path: string): string {
  return path.split('/').map(encodeURIComponent).join('/');
}

/** A segment that starts with "." or is empty (a leading, doubled or trailing "/", or no path at all). */
const HIDDEN_OR_EMPTY_SEGMENT = /(?:^|\/)(?:\.|\/|$)/;

/** Files fetched at once by `read`: each is its own request, streamed by the server from git. */
const READS_AT_ONCE = 8;
/** The most pages `POST /vault/pages/batch` returns in one answer. */
const PAGES_PER_BATCH = 50;

/**
 * The file API as the transport: every file of the vault, pages and attachments alike, as
 * raw bytes (`GET/PUT/DELETE /vault/file/{path}` with `If-Match` / `If-None-Match: *`, the
 * listing `/vault/files`), and the change log's long-poll for `--watch`.
 */
export class FilesRemote implements Remote {
  readonly readBatch = PAGES_PER_BATCH;

  constructor(private readonly http: HttpClient) {}

  async whoami(): Promise<Identity> {
    const { body } = await this.http.request('GET', '/vault/whoami');
    const credential = body.credential as { name?: string; device?: boolean } | undefined;
    if (typeof body.user !== 'string' || !credential)
      throw new SyncError('server', 'The server answered /vault/whoami without a user: not a Quire server?');
    return { user: body.user, device: credential.name ?? 'device', deviceKey: credential.device === true };
  }

  accepts(path: string): boolean {
    // The server's file rules: no absolute path, no empty or hidden segment (.git, .obsidian, …).
    return !HIDDEN_OR_EMPTY_SEGMENT.test(path);
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
      const { body } = await this.http.request('GET', `/vault/files?${query}`);
      for (const file of body.files as { path: string; hash: string }[]) files.set(file.path, file.hash);
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

  async read(paths: string[], spill: Spill): Promise<Map<string, Fetched>> {
    const out = new Map<string, Fetched>();
    // Pages come 50 to a request (a file each would spend the plan's `read` bucket 50 times
    // faster); a page whose text does not survive JSON (not UTF-8) comes as a file after all.
    const pages = paths.filter((path) => path.endsWith('.md'));
    const single = paths.filter((path) => !path.endsWith('.md'));
    for (let i = 0; i < pages.length; i += PAGES_PER_BATCH) {
      const { body } = await this.http.request('POST', '/vault/pages/batch', { paths: pages.slice(i, i + PAGES_PER_BATCH) });
      const missing = new Set(body.missing as string[]);
      const got = new Set<string>();
      for (const page of body.pages as { path: string; hash: string; content: string }[]) {
        const bytes = Buffer.from(page.content, 'utf8');
        if (hashBlob(bytes) !== page.hash) continue;
        out.set(page.path, { hash: page.hash, bytes });
        got.add(page.path);
      }
      single.push(...pages.slice(i, i + PAGES_PER_BATCH).filter((path) => !got.has(path) && !missing.has(path)));
    }
    let next = 0;
    const worker = async () => {
      while (next < single.length) {
        const path = single[next++];
        const file = await this.readOne(path, spill);
        if (file) out.set(path, file);
      }
    };
    await Promise.all(Array.from({ length: Math.min(READS_AT_ONCE, single.length) }, worker));
    return out;
  }

  private async readOne(path: string, spill: Spill): Promise<Fetched | undefined> {
    let res: IncomingMessage;
    try {
      res = await this.http.download(`/vault/file/${urlPath(path)}`);
    } catch (err) {
      if (err instanceof SyncError && err.code === 'NOT_FOUND') return undefined;
      throw err;
    }
    const size = Number(res.headers['content-length']);
    // The ETag names the version; bytes that do not match it were cut short on the way.
    const etag = String(res.headers.etag ?? '')
      .replace(/^W\//, '')
      .replace(/^"(.*)"$/, '$1');
    const incomplete = () => new SyncError('network', `${path} arrived incomplete; it is fetched again next pass`);
    try {
      if (size > BIG_FILE_BYTES) {
        const spilled = await spill(path, size, res);
        if (spilled.hash === etag) return spilled;
        await rm(spilled.tmp, { force: true });
        throw incomplete();
      }
      const chunks: Buffer[] = [];
      for await (const chunk of res) chunks.push(chunk as Buffer);
      const bytes = Buffer.concat(chunks);
      if (hashBlob(bytes) !== etag) throw incomplete();
      return { hash: etag, bytes };
    } catch (err) {
      // A connection lost mid-file: the file is fetched again at the next pass.
      throw err instanceof SyncError ? err : incomplete();
    }
  }

  async write(path: string, body: UploadBody, base: string | null): Promise<string> {
    const headers: Record<string, string> = {
      'content-type': 'application/octet-stream',
      ...(base === null ? { 'if-none-match': '*' } : { 'if-match': `"${base}"` }),
    };
    let bytes: RequestBody;
    if (body instanceof Uint8Array) bytes = body;
    else {
      // A big file goes as it is read from disk; its length up front, so the server can refuse it at once.
      headers['content-length'] = String(body.size);
      bytes = (write) => sendChecked(body, write);
    }
    const { body: answer } = await this.http.send('PUT', `/vault/file/${urlPath(path)}`, headers, bytes);
    if (typeof answer.hash !== 'string') throw new SyncError('server', `PUT /vault/file answered without a hash`);
    return answer.hash;
  }

  async remove(path: string, base: string): Promise<void> {
    try {
      await this.http.send('DELETE', `/vault/file/${urlPath(path)}`, { 'if-match': `"${base}"` });
    } catch (err) {
      if (!(err instanceof SyncError && err.code === 'NOT_FOUND')) throw err;
    }
  }

  async ack(cursor: string): Promise<void> {
    await this.http.request('POST', '/vault/changes/ack', { cursor });
  }

  /** The change log's long-poll: the server answers within a second of a commit, one `sync` request per wait. */
  async waitForChanges(since: string, waitMs: number, signal: AbortSignal): Promise<boolean> {
    const wait = Math.max(1, Math.min(60, Math.round(waitMs / 1000)));
    try {
      const { body } = await this.http.send('GET', `/vault/changes?since=${since}&limit=1&wait=${wait}`, {}, undefined, {
        signal,
        retry: false,
      });
      return body.cursor !== since;
    } catch (err) {
      if (signal.aborted) return false;
      throw err;
    }
  }
}
