import { join } from 'node:path';
import { Knowledge } from '../../vault-store/knowledge/knowledge.js';
import { Pages } from '../../vault-store/pages.js';
import { Vault } from '../../vault-store/vault.js';
import { WatcherPool } from '../../vault-store/watcher/watcher-pool.js';

/** A user's vault and the domain services bound to it. */
export interface UserVault {
  user: string;
  dir: string;
  vault: Vault;
  pages: Pages;
  knowledge: Knowledge;
}

export function vaultDir(dataDir: string, user: string): string {
  return join(dataDir, 'vaults', user);
}

export interface VaultRegistryOptions {
  /** Watch working trees for direct edits (off for one-shot CLI commands). */
  watch?: boolean;
}

/**
 * Opens each user's vault once, on first use, and hands the same instance to every
 * request: one Vault means one write queue per repository. Each use also keeps the
 * vault's file watcher alive; idle vaults lose theirs.
 */
export class VaultRegistry {
  private readonly open = new Map<string, Promise<UserVault>>();
  readonly watchers: WatcherPool | undefined;

  constructor(private readonly dataDir: string, options: VaultRegistryOptions = {}) {
    this.watchers = options.watch === false ? undefined : new WatcherPool();
  }

  async get(user: string): Promise<UserVault> {
    let entry = this.open.get(user);
    if (!entry) {
      entry = this.load(user);
      this.open.set(user, entry);
      entry.catch(() => this.open.delete(user));
    }
    const uv = await entry;
    this.watchers?.touch(user, uv.vault);
    return uv;
  }

  private async load(user: string): Promise<UserVault> {
    const dir = vaultDir(this.dataDir, user);
    const vault = await Vault.open(dir);
    const knowledge = await Knowledge.open(vault, { indexDir: join(this.dataDir, 'index', user) });
    return { user, dir, vault, pages: new Pages(vault), knowledge };
  }

  /** Stops watchers, waits for queued writes and persists indexes, so a shutdown cuts nothing short. */
  async close(): Promise<void> {
    await this.watchers?.closeAll();
    for (const entry of this.open.values()) {
      const uv = await entry.catch(() => undefined);
      if (uv) await uv.knowledge.close();
    }
    this.open.clear();
  }
}
