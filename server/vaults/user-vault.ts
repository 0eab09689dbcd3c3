import { join } from 'node:path';
import type { Log } from '../../vault-store/log.js';
import { WatcherPool, type WatcherPoolOptions } from '../../vault-store/watcher/watcher-pool.js';
import { Workspace } from '../../vault-store/workspace.js';
import type { LlmConfig } from '../config.js';
import { embedder } from '../llm/embeddings.js';

export function vaultDir(dataDir: string, user: string): string {
  return join(dataDir, 'vaults', user);
}

export interface VaultRegistryOptions {
  /** Watch working trees for direct edits (off for one-shot CLI commands). */
  watch?: boolean;
  /** Settle and idle times of the watchers (QUIRE_WATCH_*_MS). */
  watcher?: WatcherPoolOptions;
  /** Quiet time after a commit before an index is written to disk (QUIRE_INDEX_PERSIST_MS). */
  persistDelayMs?: number;
  /** How long a write waits for a lock git holds in the folder (QUIRE_GIT_LOCK_WAIT_MS). */
  lockWaitMs?: number;
  embeddings?: LlmConfig;
  /** Where the vaults' own failures go (a failed commit listener, watcher or index write). */
  log?: Log;
}

/**
 * Opens each user's workspace once, on first use, and hands the same instance to every
 * request: one Workspace means one write queue per repository. Each use also keeps the
 * vault's file watcher alive; idle vaults lose theirs.
 */
export class VaultRegistry {
  private readonly open = new Map<string, Promise<Workspace>>();
  readonly watchers: WatcherPool | undefined;

  constructor(
    private readonly dataDir: string,
    private readonly options: VaultRegistryOptions = {},
  ) {
    this.watchers = options.watch === false ? undefined : new WatcherPool({ ...options.watcher, log: options.log });
  }

  async get(user: string): Promise<Workspace> {
    let entry = this.open.get(user);
    if (!entry) {
      entry = this.load(user);
      this.open.set(user, entry);
      entry.catch(() => this.open.delete(user));
    }
    const workspace = await entry;
    this.watchers?.touch(user, workspace.vault);
    return workspace;
  }

  private load(user: string): Promise<Workspace> {
    const { persistDelayMs, lockWaitMs, log, embeddings } = this.options;
    return Workspace.open(vaultDir(this.dataDir, user), {
      indexDir: join(this.dataDir, 'index', user),
      persistDelayMs,
      lockWaitMs,
      log,
      ...(embeddings ? { embeddings: { model: embeddings.model, embed: embedder(embeddings) } } : {}),
    });
  }

  /** Stops watchers, waits for queued writes and persists indexes, so a shutdown cuts nothing short. */
  async close(): Promise<void> {
    await this.watchers?.closeAll();
    for (const entry of this.open.values()) await (await entry.catch(() => undefined))?.close();
    this.open.clear();
  }
}
