/** Who the key belongs to, from `GET /vault/whoami`. */
export interface Identity {
  user: string;
  /** The key's name: conflict copies carry it. */
  device: string;
  deviceKey: boolean;
  canWrite: boolean;
}

/** The server's files as of `cursor`: path → git blob id. */
export interface RemoteTree {
  cursor: string;
  files: Map<string, string>;
}

/** What changed after a cursor: path → its hash now, null when deleted. */
export interface RemoteChanges {
  cursor: string;
  changed: Map<string, string | null>;
}

/**
 * The vault as the sync client sees it. Everything the client asks of the server goes through
 * this port (files-remote.ts implements it over the file API).
 */
export interface Remote {
  whoami(): Promise<Identity>;
  /** The paths this transport can carry; others are left alone on both sides. */
  accepts(path: string): boolean;
  snapshot(): Promise<RemoteTree>;
  /** Throws a SyncError with code CURSOR_UNKNOWN (410) when the history was rewritten. */
  changesSince(cursor: string): Promise<RemoteChanges>;
  /** Up to `readBatch` files; a path that vanished meanwhile is left out. */
  read(paths: string[]): Promise<Map<string, { hash: string; bytes: Uint8Array }>>;
  readonly readBatch: number;
  /** Writes when the server still has `base` (null: the file must not exist); returns the new hash. CONFLICT otherwise. */
  write(path: string, bytes: Uint8Array, base: string | null): Promise<string>;
  /** Deletes when the server still has `base`; a file already gone is no error. */
  remove(path: string, base: string): Promise<void>;
  ack(cursor: string): Promise<void>;
  /**
   * Resolves true as soon as the vault has a commit after `since`, or false after about
   * `waitMs` without one (or when `signal` aborts).
   */
  waitForChanges(since: string, waitMs: number, signal: AbortSignal): Promise<boolean>;
}
