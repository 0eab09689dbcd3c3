import { join } from 'node:path';
import type { Log } from '../../vault-store/log.js';
import type { CommitEvent, CommitListener } from '../../vault-store/vault.js';
import { WatcherPool, type WatcherPoolOptions } from '../../vault-store/watcher/watcher-pool.js';
import { Workspace } from '../../vault-store/workspace.js';
import type { LlmConfig } from '../config.js';
import { embedder } from '../llm/embeddings.js';
import { LoadedVault, type VaultLease } from './loaded-vault.js';
import { processMemory } from './memory.js';
import { OpenSlots } from './open-slots.js';

export type { VaultLease } from './loaded-vault.js';

/** Vaults opening at once (see OpenSlots). */
const OPENS_AT_ONCE = 2;

/**
 * The share of the budget (after the baseline) loaded vaults are kept within. The rest is for
 * what the estimates cannot see coming: vaults opening, a closing vault's index save, garbage
 * awaiting GC. Kept at the whole budget, RSS peaked 11% over it in `scale-users`.
 */
const BUDGET_HEADROOM = 0.85;

export function vaultDir(dataDir: string, user: string): string {
  return join(dataDir, 'vaults', user);
}

/** The server's logger as the registry uses it: the domain's two levels and `info` for its metrics. */
export interface RegistryLog extends Log {
  info(fields: object, message: string): void;
}

export interface VaultRegistryOptions {
  /** Watch working trees for direct edits (off for one-shot CLI commands). */
  watch?: boolean;
  /** Settle and idle times of the watchers (QUIRE_WATCH_*_MS). */
  watcher?: WatcherPoolOptions;
  /** Longest time from a commit to the save of the index that holds it (QUIRE_INDEX_PERSIST_MS). */
  persistDelayMs?: number;
  /** How long a write waits for a lock git holds in the folder (QUIRE_GIT_LOCK_WAIT_MS). */
  lockWaitMs?: number;
  embeddings?: LlmConfig;
  /** What loaded vaults may hold together, in bytes (QUIRE_MEMORY_BUDGET_MB); unbounded when unset. */
  memoryBudgetBytes?: number;
  /** A vault unused this long is closed (QUIRE_VAULT_IDLE_MS); 0 or unset: never for idleness. */
  idleMs?: number;
  /** How often the memory line is logged (60 s). */
  metricsEveryMs?: number;
  /** Where the vaults' own failures go, and the memory line. */
  log?: RegistryLog;
}

/**
 * Each user's workspace, opened on first use and handed to every request while loaded: one
 * Workspace means one write queue per repository. A request holds a lease while it uses the
 * workspace; a vault nobody holds may be closed — the least recently used first when the
 * loaded vaults' memory passes the budget, any after `idleMs` unused — and is reopened from
 * its saved index on its next request. Commit listeners registered here outlive a close.
 */
export class VaultRegistry {
  private readonly loaded = new Map<string, LoadedVault>();
  /** Vaults being closed: a reopen waits for the close, so one repository never has two queues. */
  private readonly closing = new Map<string, Promise<void>>();
  private readonly listeners = new Map<string, Set<CommitListener>>();
  private readonly metrics: NodeJS.Timeout;
  private evictions = 0;
  /** The process's RSS before any vault was loaded: the budget is for the whole process, and this part is not the vaults'. */
  private readonly baseline = process.memoryUsage.rss();
  private scale = 1;
  private scaleAt = 0;
  /** What each user's vault was last measured at when it was closed: what its reopening is expected to hold. */
  private readonly lastBytes = new Map<string, number>();
  private readonly opens = new OpenSlots(OPENS_AT_ONCE);
  readonly watchers: WatcherPool | undefined;

  constructor(
    private readonly dataDir: string,
    private readonly options: VaultRegistryOptions = {},
  ) {
    this.watchers = options.watch === false ? undefined : new WatcherPool({ ...options.watcher, log: options.log });
    this.metrics = setInterval(() => this.logMemory('memory'), options.metricsEveryMs ?? 60_000);
    this.metrics.unref();
  }

  /** The user's workspace, kept loaded until the lease is released. */
  async acquire(user: string): Promise<VaultLease> {
    let entry = this.loaded.get(user);
    if (!entry) {
      entry = new LoadedVault(user, this.load(user), this.options.idleMs ?? 0, (idle) => this.onIdle(idle));
      // Counted at its expected size while it opens, and room made for it first: counted
      // only once open, several vaults opening at once took RSS past the budget.
      entry.bytes = this.expectedBytes(user);
      this.track(entry);
      this.enforceBudget();
    }
    entry.take();
    let workspace: Workspace;
    try {
      workspace = await entry.opening;
    } catch (err) {
      entry.leases -= 1;
      throw err;
    }
    this.watchers?.touch(user, workspace.vault);
    return entry.lease(workspace, () => this.enforceBudget());
  }

  /** Runs `task` on the user's workspace, holding it until the task settles. */
  async use<T>(user: string, task: (workspace: Workspace) => Promise<T>): Promise<T> {
    const lease = await this.acquire(user);
    try {
      return await task(lease.workspace);
    } finally {
      lease.release();
    }
  }

  /**
   * The user's workspace, not held: it may be closed once idle or past the budget. For the
   * CLI and tests; anything serving a request takes a lease (`acquire`, `use`).
   */
  async get(user: string): Promise<Workspace> {
    const lease = await this.acquire(user);
    lease.release();
    return lease.workspace;
  }

  /** The user's workspace if it is loaded now, without loading it (or keeping it loaded). */
  loadedWorkspace(user: string): Workspace | undefined {
    return this.loaded.get(user)?.workspace;
  }

  /**
   * Marks the user's loaded vault as used now and keeps its folder watched: for a lease held
   * long (a live change stream), since a watcher untouched for QUIRE_WATCH_IDLE_MS stops.
   */
  touch(user: string): void {
    const entry = this.loaded.get(user);
    if (!entry?.workspace) return;
    entry.lastUsed = Date.now();
    this.watchers?.touch(user, entry.workspace.vault);
  }

  /**
   * Hears of every commit to the user's vault, whichever workspace makes it: the listener stays
   * across closes and reopens and does not keep the vault loaded. Runs inside the write queue.
   */
  onCommit(user: string, listener: CommitListener): () => void {
    let set = this.listeners.get(user);
    if (!set) this.listeners.set(user, (set = new Set()));
    set.add(listener);
    return () => {
      set.delete(listener);
      if (set.size === 0 && this.listeners.get(user) === set) this.listeners.delete(user);
    };
  }

  /** How many `onCommit` listeners the user has (one that outlives its owner is a leak). */
  commitListenerCount(user: string): number {
    return this.listeners.get(user)?.size ?? 0;
  }

  /** What health and the memory line report: vaults loaded, their estimated bytes, the budget. */
  memory(): { loaded: number; bytes: number; budget: number | null; evictions: number } {
    let bytes = 0;
    for (const entry of this.loaded.values()) bytes += entry.measure();
    return { loaded: this.loaded.size, bytes, budget: this.options.memoryBudgetBytes ?? null, evictions: this.evictions };
  }

  /** Stops watchers, waits for queued writes and persists indexes, so a shutdown cuts nothing short. */
  async close(): Promise<void> {
    clearInterval(this.metrics);
    await this.watchers?.closeAll();
    const entries = [...this.loaded.values()];
    this.loaded.clear();
    for (const entry of entries) {
      entry.stop();
      await (await entry.opening.catch(() => undefined))?.close();
    }
    await Promise.all(this.closing.values());
  }

  private async load(user: string): Promise<Workspace> {
    await this.closing.get(user);
    const { persistDelayMs, lockWaitMs, log, embeddings } = this.options;
    const workspace = await this.opens.run(() =>
      Workspace.open(vaultDir(this.dataDir, user), {
        indexDir: join(this.dataDir, 'index', user),
        persistDelayMs,
        lockWaitMs,
        log,
        ...(embeddings ? { embeddings: { model: embeddings.model, embed: embedder(embeddings) } } : {}),
      }),
    );
    workspace.onCommit((event) => this.announce(user, event));
    return workspace;
  }

  private track(entry: LoadedVault): void {
    this.loaded.set(entry.user, entry);
    entry.opening.then(
      (workspace) => {
        entry.workspace = workspace;
        entry.measure(true);
        this.enforceBudget();
      },
      () => {
        entry.stop();
        if (this.loaded.get(entry.user) === entry) this.loaded.delete(entry.user);
      },
    );
  }

  private async announce(user: string, event: CommitEvent): Promise<void> {
    for (const listener of [...(this.listeners.get(user) ?? [])]) {
      try {
        await listener(event);
      } catch (err) {
        this.options.log?.error({ vault: user, commit: event.commit, err: (err as Error).message }, 'commit listener failed');
      }
    }
  }

  /**
   * Closes the least recently used vaults nobody holds until the rest fit what the budget leaves
   * after the process's baseline. The most recently used one stays even alone over it: a budget
   * smaller than one vault serves one at a time.
   */
  private enforceBudget(): void {
    // The most recently used vault always stays, so with one loaded there is nothing to close:
    // measuring it walks every page (~15–25 ms at 100k), a pause the request ending here would give.
    if (this.options.memoryBudgetBytes === undefined || this.loaded.size < 2) return;
    const budget = Math.max(0, this.options.memoryBudgetBytes - this.baseline) * BUDGET_HEADROOM;
    const entries = [...this.loaded.values()];
    let total = entries.reduce((sum, entry) => sum + entry.measure(), 0);
    const scale = this.rssPerEstimatedByte(total);
    if (total * scale <= budget) return;
    const byAge = entries.sort((a, b) => a.lastUsed - b.lastUsed);
    for (const entry of byAge.slice(0, -1)) {
      if (total * scale <= budget) break;
      if (entry.leases > 0 || !entry.workspace) continue;
      total -= entry.bytes;
      void this.evict(entry, 'budget');
    }
  }

  /**
   * How much RSS a byte of the vaults' estimates costs, from the process's own figure (read at
   * most once a second): the estimates leave out V8's overhead and garbage awaiting GC, and the
   * budget is for RSS. Between 1 and 3, so one odd reading cannot empty or ignore the budget.
   */
  private rssPerEstimatedByte(estimated: number): number {
    const now = Date.now();
    if (estimated > 0 && now - this.scaleAt >= 1000) {
      this.scaleAt = now;
      this.scale = Math.min(3, Math.max(1, (process.memoryUsage.rss() - this.baseline) / estimated));
    }
    return this.scale;
  }

  /** What a vault about to open will hold: its own size when it was last closed, else the loaded vaults' mean. */
  private expectedBytes(user: string): number {
    const known = this.lastBytes.get(user);
    if (known !== undefined) return known;
    let sum = 0;
    let open = 0;
    for (const entry of this.loaded.values()) {
      if (!entry.workspace) continue;
      sum += entry.bytes;
      open += 1;
    }
    return open === 0 ? 0 : sum / open;
  }

  private onIdle(entry: LoadedVault): void {
    if (this.loaded.get(entry.user) === entry && entry.workspace && entry.idleSince(this.options.idleMs ?? 0))
      void this.evict(entry, 'idle');
  }

  /**
   * Closes a vault nobody holds: out of `loaded` at once (a request now waits for the close and
   * gets a fresh workspace), then the watcher commits what it still has pending, queued writes
   * land and the index is saved. Its memory goes when nothing references the workspace.
   */
  private evict(entry: LoadedVault, reason: 'budget' | 'idle'): Promise<void> {
    const { user, workspace } = entry;
    const started = performance.now();
    this.loaded.delete(user);
    this.lastBytes.set(user, entry.bytes);
    entry.stop();
    this.evictions += 1;
    const closed = (async () => {
      await this.watchers?.close(user);
      await workspace!.close();
    })()
      .then(
        () =>
          this.logMemory('vault evicted', { vault: user, reason, vault_bytes: entry.bytes, ms: Math.round(performance.now() - started) }),
        (err: Error) => this.options.log?.error({ vault: user, err: err.message }, 'closing an evicted vault failed'),
      )
      .finally(() => {
        if (this.closing.get(user) === closed) this.closing.delete(user);
      });
    this.closing.set(user, closed);
    return closed;
  }

  private logMemory(message: string, fields: object = {}): void {
    const { loaded, bytes, budget, evictions } = this.memory();
    this.options.log?.info({ ...fields, ...processMemory(), loaded_vaults: loaded, loaded_bytes: bytes, budget, evictions }, message);
  }
}
