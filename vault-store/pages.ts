import { QuireError } from './errors.js';
import { staleEdit, type OnStale } from './edits/stale-edit.js';
import { ViewCache, type PageSummary, type PageView } from './page-view.js';
import { hashBlob } from './git/hash-blob.js';
import type { Author, CommitEvent, Vault } from './vault.js';
import { listSorted, type ListingInput } from './path-listing.js';
import { checkPortablePath } from './paths.js';
import { parentOf } from './symlinks.js';

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/**
 * Page-level operations on a vault: the page contract (read, list, write, delete) over
 * the vault's files. Paths arrive validated (normalizePagePath at the edge).
 */
export class Pages {
  private readonly views = new ViewCache();

  constructor(readonly vault: Vault) {}

  async read(path: string): Promise<PageView> {
    const entry = this.vault.manifest.get(path);
    const file = await this.vault.readFile(path);
    if (!entry || !file) throw new QuireError('NOT_FOUND', `No page at ${path}`, { path });
    return this.views.view(path, file.oid, file.content, await this.vault.updatedAt(path));
  }

  /** The view of a blob read elsewhere (a past version), through the same parse cache. */
  viewOf(path: string, oid: string, bytes: Uint8Array, updatedAt: Date): PageView {
    return this.views.view(path, oid, bytes, updatedAt);
  }

  async summary(path: string): Promise<PageSummary> {
    const entry = this.vault.manifest.get(path);
    if (!entry) throw new QuireError('NOT_FOUND', `No page at ${path}`, { path });
    const cached = this.views.fields(path, entry.oid);
    if (cached) {
      const { title, tags, size } = cached;
      return { path, hash: entry.oid, title, size, tags, updated_at: (await this.vault.updatedAt(path)).toISOString() };
    }
    const { title, tags, size, hash, updated_at } = await this.read(path);
    return { path, hash, title, size, tags, updated_at };
  }

  /** Pages sorted by path, after `cursor` (the last path of the previous page), under the folder `prefix` (from normalizePrefix). */
  async list(input: ListingInput) {
    const { paths, next_cursor } = listSorted(this.vault.manifest.pages(), input);
    const pages = await Promise.all(paths.map((p) => this.summary(p)));
    return { pages, next_cursor };
  }

  /**
   * Create or update. `baseHash`: undefined = overwrite, null = must not exist, string = must
   * match, or with `merge` be merged three-way with what changed since (see staleEdit).
   */
  write(
    author: Author,
    input: { path: string; content: string; baseHash?: string | null; merge?: boolean; check?: (text: string) => void },
  ) {
    const { path, baseHash, check } = input;
    return this.edit(author, { path, baseHash, subject: 'Update', onStale: input.merge ? 'merge' : undefined, check }, input.content);
  }

  /**
   * Read-modify-write of one page inside the write queue: `change` is the new text, or gets
   * the page's current text (undefined when it does not exist) and returns the new text, so
   * the edit applies to exactly the version it was computed from. `baseHash` as for `write`;
   * when it names another version of an existing page, `onStale` may still land the edit
   * (`merged` is then true). `check` vets the text about to be written (a size limit).
   */
  async edit(
    author: Author,
    input: { path: string; baseHash?: string | null; subject: string; onStale?: OnStale; check?: (text: string) => void },
    change: string | ((current: string | undefined) => string),
  ) {
    const { path, baseHash, onStale } = input;
    let existed = false;
    let merged = false;
    let bytes = new Uint8Array();
    const event = await this.vault.mutate(author, `${input.subject} ${path}`, async () => {
      this.checkNewPath(path);
      const oid = this.vault.manifest.get(path)?.oid;
      existed = oid !== undefined;
      merged = onStale !== undefined && typeof baseHash === 'string' && existed && oid !== baseHash;
      if (!merged) this.vault.expectHash(path, baseHash);
      // A whole-page write needs no read of the old version.
      const current = (typeof change === 'string' && !merged) || !existed ? undefined : await this.vault.readFile(path);
      const text = merged
        ? await staleEdit(this.vault, path, { baseHash: baseHash!, current: current!, onStale: onStale! }, change)
        : typeof change === 'string'
          ? change
          : change(current && decoder.decode(current.content));
      input.check?.(text);
      bytes = encoder.encode(text);
      return [{ path, content: bytes }];
    });
    // Built from what was written, not re-read: a later write may already have landed.
    const at = event?.at ?? (await this.vault.updatedAt(path).catch(() => new Date()));
    const page = this.views.view(path, hashBlob(bytes), bytes, at);
    return { page, commit: event?.commit ?? null, created: event !== undefined && !existed, merged };
  }

  async delete(author: Author, input: { path: string; baseHash?: string | null }): Promise<CommitEvent> {
    const event = await this.vault.mutate(author, `Delete ${input.path}`, () => {
      if (!this.vault.manifest.get(input.path)) throw new QuireError('NOT_FOUND', `No page at ${input.path}`, { path: input.path });
      this.vault.expectHash(input.path, input.baseHash);
      return [{ path: input.path, content: null }];
    });
    return event!;
  }

  /**
   * For a page (or attachment) a write may create: refused when Windows could not check it
   * out, when it differs only in case from an existing file, or when it would turn a file into
   * a folder or a folder into a file. An existing file passes as it is.
   */
  checkNewPath(path: string): void {
    const { manifest } = this.vault;
    if (manifest.get(path)) return;
    checkPortablePath(path);
    for (let folder = parentOf(path); folder !== ''; folder = parentOf(folder)) {
      if (manifest.get(folder))
        throw new QuireError('INVALID_PATH', `${folder} is a file; it cannot also be a folder`, { path, file: folder });
    }
    if (manifest.isFolder(path)) throw new QuireError('INVALID_PATH', `${path} is a folder; it cannot also be a file`, { path });
    const twin = this.vault.manifest.caseTwin(path);
    if (twin) {
      throw new QuireError('CASE_COLLISION', `${path} differs only in case from existing page ${twin}`, { path, existing_path: twin });
    }
  }
}
