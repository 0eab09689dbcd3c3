import { join } from 'node:path';
import { PageEmbeddings } from '../../vault-store/knowledge/embeddings.js';
import { Knowledge } from '../../vault-store/knowledge/knowledge.js';
import { Pages } from '../../vault-store/pages.js';
import { Vault } from '../../vault-store/vault.js';
import { WatcherPool } from '../../vault-store/watcher/watcher-pool.js';
import type { LlmConfig } from '../config.js';
import { embedder } from '../llm/embeddings.js';

/** A user's vault and the domain services bound to it. */
export interface UserVault {
  user: string;
  dir: string;
  vault: Vault;
  pages: Pages;
  knowledge: Knowledge;
  /** Page vectors for similar pages, when an embeddings model is configured. */
  embeddings?: PageEmbeddings;
}

export function vaultDir(dataDir: string, user: string): string {
  return join(dataDir, 'vaults', user);
}

export interface VaultRegistryOptions {
  /** Watch working trees for direct edits (off for one-shot CLI commands). */
  watch?: boolean;
  embeddings?: LlmConfig;
}

/**
 * Opens each user's vault once, on first use, and hands the same instance to every
 * request: one Vault means one write queue per repository. Each use also keeps the
 * vault's file watcher alive; idle vaults lose theirs.
 */
export class VaultRegistry {
  private readonly open = new Map<string, Promise<UserVault>>();
  readonly watchers: WatcherPool | undefined;

  constructor(
    private readonly dataDir: string,
    private readonly options: VaultRegistryOptions = {},
  ) {
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
    const indexDir = join(this.dataDir, 'index', user);
    const knowledge = await Knowledge.open(vault, { indexDir });
    const config = this.options.embeddings;
    if (!config) return { user, dir, vault, pages: new Pages(vault), knowledge };
    const embeddings = await PageEmbeddings.open(join(indexDir, 'embeddings.bin'), config.model, embedder(config), () => knowledge.index);
    // After the write, not inside it: new pages are embedded in the background.
    const refresh = () => void setImmediate(() => void embeddings.refresh());
    vault.onCommit(refresh);
    refresh();
    return { user, dir, vault, pages: new Pages(vault), knowledge, embeddings };
  }

  /** Stops watchers, waits for queued writes and persists indexes, so a shutdown cuts nothing short. */
  async close(): Promise<void> {
    await this.watchers?.closeAll();
    for (const entry of this.open.values()) {
      const uv = await entry.catch(() => undefined);
      await uv?.embeddings?.close();
      if (uv) await uv.knowledge.close();
    }
    this.open.clear();
  }
}
