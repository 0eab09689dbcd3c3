import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { hashBlob } from '../../vault-store/git/hash-blob.js';

/**
 * The text of the last synced version of each page (DIR/.quire-sync/base/<2 hex>/<38 hex>, by
 * blob id): the base of a three-way merge when both sides changed it. A cache, so it is written without
 * fsync and checked on read: a copy a crash left torn reads as missing, and a missing base
 * only means a conflict copy instead of a merge, never a lost edit.
 */
export class BaseStore {
  private readonly folder: string;
  private readonly made = new Set<string>();

  constructor(stateFolder: string) {
    this.folder = join(stateFolder, 'base');
    mkdirSync(this.folder, { recursive: true });
  }

  /** Only pages are ever merged: an attachment's base would be a second copy of every file for nothing. */
  keeps(path: string): boolean {
    return path.endsWith('.md');
  }

  put(path: string, hash: string, bytes: Uint8Array): void {
    if (!this.keeps(path)) return;
    // Written in place: a copy cut short fails its hash check in `get`.
    const shard = hash.slice(0, 2);
    if (!this.made.has(shard)) {
      mkdirSync(join(this.folder, shard), { recursive: true });
      this.made.add(shard);
    }
    writeFileSync(this.file(hash), bytes);
  }

  get(hash: string): Uint8Array | undefined {
    try {
      const bytes = readFileSync(this.file(hash));
      return hashBlob(bytes) === hash ? bytes : undefined;
    } catch {
      return undefined;
    }
  }

  /** Removes the copies no path's base names any more. */
  prune(keep: Iterable<string>): void {
    const wanted = new Set(keep);
    for (const shard of readdirSync(this.folder)) {
      for (const name of readdirSync(join(this.folder, shard))) {
        if (!wanted.has(shard + name)) rmSync(join(this.folder, shard, name), { force: true });
      }
    }
  }

  /** Like git's objects, in 256 folders: one folder of 10,000 files made each create slower. */
  private file(hash: string): string {
    return join(this.folder, hash.slice(0, 2), hash.slice(2));
  }
}
