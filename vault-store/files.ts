import { promises as fsp } from 'node:fs';
import type { Readable } from 'node:stream';
import { QuireError } from './errors.js';
import type { ByteRange } from './git/repo.js';
import type { Pages } from './pages.js';
import { listSorted, type ListingInput } from './path-listing.js';
import { fileKind, isVaultFilePath, type FileKind } from './paths.js';
import type { Author, CommitEvent, Vault } from './vault.js';

export type { ByteRange } from './git/repo.js';

/** Sizes remembered by blob id before the memo starts over (a blob's size never changes). */
const MAX_SIZES = 100_000;

/** What the API says of one file of the vault. */
export interface FileInfo {
  path: string;
  hash: string;
  size: number;
  kind: FileKind;
}

function notFound(path: string): QuireError {
  return new QuireError('NOT_FOUND', `No file at ${path}`, { path });
}

/**
 * Every file of the vault as the API sees it: pages and attachments (hidden files are
 * neither). Bytes come from git by blob id and go in by streaming (see storeBlobStream), so
 * no file is ever held whole in memory here. Paths arrive validated (normalizeVaultFilePath).
 */
export class Files {
  private readonly sizes = new Map<string, number>();

  constructor(
    private readonly vault: Vault,
    private readonly pages: Pages,
  ) {}

  async stat(path: string): Promise<FileInfo> {
    const entry = isVaultFilePath(path) ? this.vault.manifest.get(path) : undefined;
    if (!entry) throw notFound(path);
    return { path, hash: entry.oid, size: await this.sizeOf(entry.oid), kind: fileKind(path) };
  }

  /** The bytes of the blob `hash` (from `stat`), whole or `range` of them. */
  stream(hash: string, range?: ByteRange): Promise<Readable> {
    return this.vault.repo.objects.blobStream(hash, range);
  }

  /** Files sorted by path, as `Pages.list` lists pages. */
  async list(input: ListingInput): Promise<{ files: FileInfo[]; next_cursor: string | null }> {
    const { paths, next_cursor } = listSorted(this.vault.manifest.vaultFiles(), input);
    // Entries taken now: a write landing meanwhile must not turn a listed file into NOT_FOUND.
    const entries = paths.map((path) => ({ path, hash: this.vault.manifest.get(path)!.oid }));
    const files = await Promise.all(entries.map(async (e) => ({ ...e, size: await this.sizeOf(e.hash), kind: fileKind(e.path) })));
    return { files, next_cursor };
  }

  /**
   * Creates or replaces a file with the bytes of `body`, streamed into git before the write
   * queue is entered (a slow upload holds no other write), then committed alone. `size` (a
   * Content-Length) lets the stream be hashed as it arrives; more than `maxBytes` is refused
   * with PAYLOAD_TOO_LARGE as soon as it arrives. `baseHash` as for pages.
   */
  async write(
    author: Author,
    input: { path: string; body: AsyncIterable<Uint8Array>; size?: number; maxBytes: number; baseHash?: string | null },
  ): Promise<FileInfo & { commit: string | null; created: boolean }> {
    const { path, baseHash } = input;
    const stored = await this.vault.repo.storeBlob(input.body, { size: input.size, maxBytes: input.maxBytes });
    try {
      let existed = false;
      const event = await this.vault.mutate(author, `Update ${path}`, () => {
        this.pages.checkNewPath(path);
        this.vault.expectHash(path, baseHash);
        existed = this.vault.manifest.get(path) !== undefined;
        return [{ path, content: stored }];
      });
      this.remember(stored.oid, stored.size);
      const info = { path, hash: stored.oid, size: stored.size, kind: fileKind(path) };
      return { ...info, commit: event?.commit ?? null, created: event !== undefined && !existed };
    } finally {
      // Moved into the folder by the commit; still here when refused or when nothing changed.
      await fsp.rm(stored.file, { force: true });
    }
  }

  async delete(author: Author, input: { path: string; baseHash?: string | null }): Promise<CommitEvent> {
    const event = await this.vault.mutate(author, `Delete ${input.path}`, () => {
      if (!this.vault.manifest.get(input.path)) throw notFound(input.path);
      this.vault.expectHash(input.path, input.baseHash);
      return [{ path: input.path, content: null }];
    });
    return event!;
  }

  private async sizeOf(oid: string): Promise<number> {
    const known = this.sizes.get(oid);
    if (known !== undefined) return known;
    const size = await this.vault.repo.objects.blobSize(oid);
    this.remember(oid, size);
    return size;
  }

  private remember(oid: string, size: number): void {
    if (this.sizes.size >= MAX_SIZES) this.sizes.clear();
    this.sizes.set(oid, size);
  }
}
