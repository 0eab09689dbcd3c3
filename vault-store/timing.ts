/**
 * How long the domain's background work waits, when the caller names no times. The server's
 * settings (QUIRE_WATCH_SETTLE_MS, QUIRE_WATCH_STABLE_MS, QUIRE_WATCH_IDLE_MS,
 * QUIRE_INDEX_PERSIST_MS, QUIRE_GIT_LOCK_WAIT_MS) default to these. No imports: the CLI reads it without loading git.
 */
export const DEFAULT_TIMING = {
  /** Quiet time after the last change in a folder before the watcher commits. */
  watchQuietMs: 300,
  /** A changed file is committed once its mtime is at least this old. */
  watchStabilityMs: 200,
  /** A watcher unused this long is closed. */
  watchIdleMs: 10 * 60_000,
  /** Longest time from a commit to the save of the index that holds it. */
  indexPersistDelayMs: 2000,
  /** How long a write waits for a lock git holds in the vault folder before answering VAULT_BUSY. */
  gitLockWaitMs: 3000,
} as const;
