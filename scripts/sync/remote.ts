import type { UploadBody } from './big-files.js';

/** Who the key belongs to, from `GET /vault/whoami`. */
export interface Identity {
  user: string;
  /** The key's name: conflict copies carry it. */
  device: string;
  deviceKey: boolean;
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

/** A file as fetched: its bytes, or for a big one, a temp file beside its place that holds them. */
export type Fetched = { hash: string; bytes: Uint8Array } | Spilled;

/** A big file's bytes already on disk, in `tmp` (beside the file's place, so a rename puts it there). */
export interface Spilled {
  hash: string;
  size: number;
  tmp: string;
}

/** Where a big download goes as it arrives: written to a temp file and hashed (the git blob id of `size` bytes). */
export type Spill = (path: string, size: number, bytes: AsyncIterable<Uint8Array>) => Promise<Spilled>;

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
  /** Up to `readBatch` files; a path that vanished meanwhile is left out. Big files go to `spill`, never whole into memory. */
  read(paths: string[], spill: Spill): Promise<Map<string, Fetched>>;
  readonly readBatch: number;
  /** Writes when the server still has `base` (null: the file must not exist); returns the new hash. CONFLICT otherwise. */
  write(path: string, body: UploadBody, base: string | null): Promise<string>;
  /** Deletes when the server still has `base`; a file already gone is no error. */
  remove(path: string, base: string): Promise<void>;
  ack(cursor: string): Promise<void>;
  /**
   * Resolves true as soon as the vault has a commit after `since`, or false after about
   * `waitMs` without one (or when `signal` aborts).
   */
  waitForChanges(since: string, waitMs: number, signal: AbortSignal): Promise<boolean>;
}
