import type { Reporter } from './progress.js';
import type { Identity, Remote } from './remote.js';
import type { SyncState } from './sync-state.js';

/** What a sync pass works with: the two sides, what is remembered of them, and whom to tell. */
export interface PassContext {
  dir: string;
  remote: Remote;
  identity: Identity;
  state: SyncState;
  report: Reporter;
  now: () => Date;
}

export interface PassResult {
  downloaded: number;
  uploaded: number;
  deleted: number;
  merged: number;
  /** Conflict copies made: [path, copy]. */
  conflicts: [string, string][];
  refused: number;
  /** Files left for the next pass: changed while we worked, or the server moved under an upload. */
  pending: number;
}
