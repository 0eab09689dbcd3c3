import { promises as fsp } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { isQuireError } from '../errors.js';
import { silentLog, type Log } from '../log.js';
import { DEFAULT_TIMING } from '../timing.js';
import type { Vault } from '../vault.js';
import { commitExternalEdits, externalEditsPending, uncommittedEdits } from './external-edits.js';
import { BranchWatcher } from './branch-watcher.js';
import { FolderWatcher } from './folder-watcher.js';
import { isIgnoreFile, type IgnoreRules } from '../worktree/ignore-rules.js';
import { isNeverCommitted } from '../worktree/working-files.js';

/** After a failed commit the paths stay pending and are retried this much later. */
const RETRY_MS = 5_000;

export interface VaultWatcherOptions {
  /** Quiet time after the last change before committing: quick edits become one commit. */
  quietMs?: number;
  /** A changed file is committed only once its mtime is at least this old (it has settled). */
  stabilityMs?: number;
  /** Where watch and commit failures are reported (they are also kept in `state().lastError`). */
  log?: Log;
}

export interface WatcherState {
  watching: boolean;
  /** Changed paths seen but not committed yet. */
  pending: number;
  /** Folders holding an fs.watch: one per folder, none per file. */
  folders: number;
  lastCommit?: { commit: string; at: string; files: number };
  lastError?: { message: string; at: string };
  /** Working files never committed: their paths break the path rules, or they are symbolic links (reason "symlink"). */
  skipped: { path: string; reason: string }[];
}

/**
 * Watches one vault's working tree and commits edits made there (Obsidian, an editor, a
 * sync tool) through the vault's write queue as the `external` author. The server's own
 * writes match HEAD by the time the queue lets the commit run, so they commit nothing.
 *
 * Folders are watched, not files (see FolderWatcher): on Linux a folder's watch reports its
 * children's changes by name. Settling is ours: a quiet period, then an mtime age.
 */
export class VaultWatcher {
  private readonly pending = new Set<string>();
  private readonly skipped = new Map<string, string>();
  private readonly quietMs: number;
  private readonly stabilityMs: number;
  private readonly log: Log;
  private timer?: NodeJS.Timeout;
  private flushing?: Promise<void>;
  private watching = false;
  private lastCommit?: WatcherState['lastCommit'];
  private lastError?: WatcherState['lastError'];

  private folderWatcher: FolderWatcher | undefined;
  private branchWatcher: BranchWatcher | undefined;
  /** A `.gitignore` changed: the rules are read again before the next commit. */
  private rulesChanged = false;

  private constructor(
    readonly vault: Vault,
    private readonly ignore: IgnoreRules,
    options: VaultWatcherOptions,
  ) {
    this.quietMs = options.quietMs ?? DEFAULT_TIMING.watchQuietMs;
    this.stabilityMs = options.stabilityMs ?? DEFAULT_TIMING.watchStabilityMs;
    this.log = options.log ?? silentLog;
  }

  /** Starts watching, then commits whatever changed while nobody watched (a start-up scan). */
  static async start(vault: Vault, options: VaultWatcherOptions = {}): Promise<VaultWatcher> {
    await vault.ignore.refresh();
    const watcher = new VaultWatcher(vault, vault.ignore, options);
    watcher.folderWatcher = await FolderWatcher.start(
      vault.dir,
      (path) => watcher.noteChange(path),
      (err) => watcher.recordError(err),
      (folder) => watcher.ignoredFolder(folder),
    );
    watcher.branchWatcher = new BranchWatcher(
      vault.repo.gitdir,
      () => void watcher.followBranch(),
      (err) => watcher.recordError(err),
    );
    watcher.watching = true;
    if (!(await watcher.commit(['']))) watcher.schedule(RETRY_MS);
    return watcher;
  }

  state(): WatcherState {
    return {
      watching: this.watching,
      pending: this.pending.size,
      folders: this.watching ? (this.folderWatcher?.folders ?? 0) : 0,
      lastCommit: this.lastCommit,
      lastError: this.lastError,
      skipped: [...this.skipped].map(([path, reason]) => ({ path, reason })),
    };
  }

  /** Pending paths whose files differ from HEAD: edits waiting for their commit. */
  uncommitted(): Promise<string[]> {
    return uncommittedEdits(this.vault, [...this.pending], { ignore: this.ignore });
  }

  /** Stops watching and commits what is still pending, settled or not. */
  async close(): Promise<void> {
    this.watching = false;
    clearTimeout(this.timer);
    this.folderWatcher?.close();
    this.branchWatcher?.close();
    await this.flushing;
    if (this.pending.size) await this.commit([...this.pending]);
  }

  /**
   * git moved the branch (or HEAD): the vault takes the new head at once, so search and the
   * change feed follow within moments. Edits waiting because the folder was busy (a rebase,
   * a detached HEAD) get their turn now, on top of the new head.
   */
  private async followBranch(): Promise<void> {
    if (!this.watching) return;
    try {
      await this.vault.follow();
    } catch (err) {
      this.recordError(err);
    }
    if (this.pending.size && !this.timer && !this.flushing) this.schedule(this.quietMs);
  }

  private noteChange(absolute: string): void {
    const path = toVaultPath(this.vault.dir, absolute);
    if (!this.watching || path.startsWith('..') || isNeverCommitted(path)) return;
    if (isIgnoreFile(path)) this.rulesChanged = true;
    this.pending.add(path);
    this.schedule(this.quietMs);
  }

  /**
   * Folders left unwatched: ignored ones (`node_modules/`, `.trash/`) holding no tracked
   * file. A tracked file beneath an ignored folder is still followed, as git does.
   */
  private ignoredFolder(absolute: string): boolean {
    const path = toVaultPath(this.vault.dir, absolute);
    if (path === '' || path.startsWith('..') || !this.ignore.ignores(path, true)) return false;
    const prefix = `${path}/`;
    for (const [tracked] of this.vault.manifest.entries()) if (tracked.startsWith(prefix)) return false;
    return true;
  }

  /**
   * Reads the ignore rules again when a `.gitignore` or `info/exclude` changed; then the
   * whole folder is looked at again (files may have stopped being ignored) and the
   * folders watched follow the new rules.
   */
  private async refreshRules(): Promise<void> {
    let changed = this.rulesChanged;
    this.rulesChanged = false;
    if (changed) await this.ignore.refresh();
    else changed = await this.ignore.refreshIfExcludeChanged();
    if (!changed) return;
    this.pending.add('');
    await this.folderWatcher?.resync();
  }

  private schedule(ms: number): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = undefined;
      // One flush at a time; changes noted meanwhile get their turn after it.
      if (this.flushing) this.schedule(this.quietMs);
      else
        this.flushing = this.flush().finally(() => {
          this.flushing = undefined;
        });
    }, ms);
  }

  /** Commits the pending paths that have settled; the rest wait for their mtime to age. */
  private async flush(): Promise<void> {
    try {
      await this.refreshRules();
    } catch (err) {
      this.recordError(err);
    }
    const now = Date.now();
    const settled: string[] = [];
    let wait = 0;
    for (const path of [...this.pending]) {
      if (path === '') {
        settled.push(path); // a full scan after the rules changed: the files it finds are checked when committed
        continue;
      }
      const stat = await fsp.lstat(join(this.vault.dir, path)).catch(() => undefined);
      const age = stat ? now - stat.mtimeMs : Infinity;
      if (age >= this.stabilityMs) settled.push(path);
      else wait = Math.max(wait, this.stabilityMs - age);
    }
    const ok = settled.length === 0 || (await this.commit(settled));
    if (!this.watching || this.timer) return; // closed, or newer changes already scheduled a run
    if (!ok) this.schedule(RETRY_MS);
    else if (this.pending.size) this.schedule(wait || this.quietMs);
  }

  /** Commits `paths` through the queue; on failure they stay pending. */
  private async commit(paths: string[]): Promise<boolean> {
    for (const path of paths) this.pending.delete(path);
    for (const path of this.skipped.keys()) {
      if (paths.some((root) => root === '' || path === root || path.startsWith(`${root}/`))) this.skipped.delete(path);
    }
    try {
      const pending = await externalEditsPending(this.vault, paths, { ignore: this.ignore });
      const event = pending
        ? await commitExternalEdits(this.vault, paths, { onSkip: (path, reason) => this.skipped.set(path, reason), ignore: this.ignore })
        : undefined;
      if (event) this.lastCommit = { commit: event.commit, at: event.at.toISOString(), files: event.changes.length };
      return true;
    } catch (err) {
      this.recordError(err);
      for (const path of paths) this.pending.add(path);
      return false;
    }
  }

  private recordError(err: unknown): void {
    const message = (err as Error).message ?? String(err);
    // A failed commit is retried every few seconds: log when the failure starts or changes.
    // A folder busy with a git operation (a rebase, a held lock) is no failure: its edits wait.
    if (message !== this.lastError?.message) {
      const busy = isQuireError(err) && err.code === 'VAULT_BUSY';
      this.log.warn({ vault: this.vault.dir, err: message }, busy ? 'vault folder busy: its edits wait' : 'watching a vault folder failed');
    }
    this.lastError = { message, at: new Date().toISOString() };
  }
}

/** An absolute path under `root` as a vault path ("/"-separated; "" for the root itself). */
function toVaultPath(root: string, absolute: string): string {
  return relative(root, absolute).split(sep).join('/');
}
