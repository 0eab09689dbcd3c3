import type { Workspace } from '../../vault-store/workspace.js';

/** Re-measuring walks every page's metadata (a few ms at 10k pages): not on every request. */
const MEASURE_EVERY_MS = 5000;

/** A workspace handed to one request or operation; the vault stays loaded until `release`. */
export interface VaultLease {
  readonly workspace: Workspace;
  /** Ends this use (later calls do nothing). */
  release(): void;
}

/**
 * One user's vault while the registry holds it: opening or open, how many leases use it,
 * when it was last used and how much memory it was last measured at. Its idle timer
 * restarts at every release, so it fires only after `idleMs` with nobody using it.
 */
export class LoadedVault {
  workspace: Workspace | undefined;
  leases = 0;
  lastUsed = Date.now();
  bytes = 0;
  private measuredAt = 0;
  private readonly idle: NodeJS.Timeout | undefined;

  constructor(
    readonly user: string,
    readonly opening: Promise<Workspace>,
    idleMs: number,
    onIdle: (entry: LoadedVault) => void,
  ) {
    if (idleMs > 0) {
      this.idle = setTimeout(() => onIdle(this), idleMs);
      this.idle.unref();
    }
  }

  /** Counts one use; the caller awaits `opening` and hands out a lease. */
  take(): void {
    this.leases += 1;
    this.lastUsed = Date.now();
  }

  lease(workspace: Workspace, onRelease: (entry: LoadedVault) => void): VaultLease {
    let released = false;
    return {
      workspace,
      release: () => {
        if (released) return;
        released = true;
        this.leases -= 1;
        this.lastUsed = Date.now();
        this.idle?.refresh();
        onRelease(this);
      },
    };
  }

  /** True when idle for `idleMs` now (a timer that fired during a long use is re-armed instead). */
  idleSince(idleMs: number): boolean {
    if (this.leases === 0 && Date.now() - this.lastUsed >= idleMs) return true;
    this.idle?.refresh();
    return false;
  }

  /** The workspace's memory estimate, re-measured when the last one is older than a few seconds (or `force`). */
  measure(force = false): number {
    if (this.workspace && (force || Date.now() - this.measuredAt >= MEASURE_EVERY_MS)) {
      this.bytes = this.workspace.memoryBytes();
      this.measuredAt = Date.now();
    }
    return this.bytes;
  }

  stop(): void {
    clearTimeout(this.idle);
  }
}
