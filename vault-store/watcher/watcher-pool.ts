import { DEFAULT_TIMING } from '../timing.js';
import type { Vault } from '../vault.js';
import { VaultWatcher, type VaultWatcherOptions } from './vault-watcher.js';

export interface WatcherPoolOptions extends VaultWatcherOptions {
  /** A vault not touched for this long loses its watcher (its folder watches are freed). */
  idleMs?: number;
}

interface Entry {
  vault: Vault;
  started: Promise<VaultWatcher | undefined>;
  idle: NodeJS.Timeout;
}

/**
 * Watchers for the vaults in use only. Each request touches its vault: the first touch
 * starts a watcher (and its start-up scan), and a watcher untouched for `idleMs` is
 * closed, so idle users hold no inotify watches. Edits made while unwatched are picked
 * up by the start-up scan of the next watcher.
 */
export class WatcherPool {
  private readonly entries = new Map<string, Entry>();
  private readonly idleMs: number;
  private lastError?: { key: string; message: string };

  constructor(private readonly options: WatcherPoolOptions = {}) {
    this.idleMs = options.idleMs ?? DEFAULT_TIMING.watchIdleMs;
  }

  /** Marks `key`'s vault as in use, starting its watcher on first use. */
  touch(key: string, vault: Vault): void {
    const entry = this.entries.get(key);
    if (entry?.vault === vault) {
      entry.idle.refresh();
      return;
    }
    // The vault was reopened: its old watcher would commit through a stale manifest.
    if (entry) void this.close(key);
    const started = VaultWatcher.start(vault, this.options).catch((err: Error) => {
      // Watching is best effort: writes and reads work without it. Forget the entry so
      // the next touch tries again.
      this.lastError = { key, message: err.message };
      this.options.log?.warn({ vault: key, err: err.message }, 'starting a vault watcher failed');
      if (this.entries.get(key)?.started === started) this.drop(key);
      return undefined;
    });
    const idle = setTimeout(() => void this.close(key), this.idleMs);
    idle.unref();
    this.entries.set(key, { vault, started, idle });
  }

  /** The running watcher of `key`, once started. */
  async get(key: string): Promise<VaultWatcher | undefined> {
    return this.entries.get(key)?.started;
  }

  /** Keys with a watcher (starting or running). */
  keys(): string[] {
    return [...this.entries.keys()];
  }

  get failure(): { key: string; message: string } | undefined {
    return this.lastError;
  }

  async close(key: string): Promise<void> {
    const entry = this.drop(key);
    const watcher = await entry?.started;
    await watcher?.close();
  }

  async closeAll(): Promise<void> {
    await Promise.all(this.keys().map((key) => this.close(key)));
  }

  private drop(key: string): Entry | undefined {
    const entry = this.entries.get(key);
    if (entry) clearTimeout(entry.idle);
    this.entries.delete(key);
    return entry;
  }
}
