import { createHash } from 'node:crypto';
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { pidLock } from '../pid-lock.js';
import { HttpClient } from './http-client.js';
import { consoleReporter, type Reporter } from './progress.js';
import { FilesRemote } from './files-remote.js';
import type { Identity, Remote } from './remote.js';
import type { PassResult } from './pass-context.js';
import { runPass } from './sync-pass.js';
import { SyncError } from './sync-error.js';
import { STATE_FOLDER, SyncState } from './sync-state.js';

export interface SyncOptions {
  dir: string;
  server: string;
  key: string;
  report?: Reporter;
  now?: () => Date;
  /** Request attempts and first back-off (tests shorten them). */
  attempts?: number;
  backoffMs?: number;
}

/** Passes in one run until nothing is left pending (a file busy, the server moving under an upload). */
const MAX_PASSES = 4;

/**
 * `quire sync DIR`: one folder kept in two-way sync with the vault of a device key. `open`
 * checks the server and the key and takes the folder's lock; `once` syncs until both sides
 * agree; `watch` keeps doing so as either side changes.
 */
export class SyncClient {
  private constructor(
    readonly dir: string,
    readonly remote: Remote,
    readonly identity: Identity,
    private readonly state: SyncState,
    private readonly report: Reporter,
    private readonly now: () => Date,
    /** Releases the folder's lock. */
    private readonly release: () => void,
  ) {}

  static async open(options: SyncOptions): Promise<SyncClient> {
    const report = options.report ?? consoleReporter();
    const http = new HttpClient({
      server: options.server,
      key: options.key,
      attempts: options.attempts,
      backoffMs: options.backoffMs,
      onRetry: (why, ms) => report.line(`${why}; trying again in ${Math.ceil(ms / 1000)} s`),
    });
    const remote = new FilesRemote(http);
    const key = createHash('sha256').update(options.key).digest('hex').slice(0, 32);
    // A new folder gets no state folder until the server and the key are known to be right.
    let identity = existsSync(join(options.dir, STATE_FOLDER)) ? undefined : await deviceIdentity(remote);
    mkdirSync(join(options.dir, STATE_FOLDER), { recursive: true });
    const release = lockFolder(options.dir);
    try {
      const state = SyncState.open(options.dir);
      // The same key with the same server is the same device: a run skips whoami. A key revoked
      // since, or a plan that lost REST, fails the pass's first request with the same error.
      if (!identity && state.knows(options.server, key)) {
        const { user, device } = state.binding!;
        identity = { user, device, deviceKey: true };
      }
      identity ??= await deviceIdentity(remote);
      state.bind({ server: options.server, user: identity.user, device: identity.device, key });
      return new SyncClient(options.dir, remote, identity, state, report, options.now ?? (() => new Date()), release);
    } catch (err) {
      release();
      throw err;
    }
  }

  /** Syncs until both sides agree (or MAX_PASSES passes), and reports what was done. */
  async once(): Promise<PassResult> {
    const total: PassResult = { downloaded: 0, uploaded: 0, deleted: 0, merged: 0, conflicts: [], refused: 0, pending: 0 };
    for (let pass = 0; pass < MAX_PASSES; pass++) {
      const result = await runPass({
        dir: this.dir,
        remote: this.remote,
        identity: this.identity,
        state: this.state,
        report: this.report,
        now: this.now,
      });
      for (const key of ['downloaded', 'uploaded', 'deleted', 'merged', 'refused'] as const) total[key] += result[key];
      total.conflicts.push(...result.conflicts);
      total.pending = result.pending;
      if (!result.pending) break;
    }
    return total;
  }

  /** The cursor the folder is synced to. */
  get cursor(): string | undefined {
    return this.state.cursor;
  }

  close(): void {
    this.release();
  }
}

/** Who the key belongs to, refused unless it is a device key. */
async function deviceIdentity(remote: Remote): Promise<Identity> {
  const identity = await remote.whoami();
  if (!identity.deviceKey) {
    throw new SyncError(
      'key',
      `The key "${identity.device}" is not a device key. Create one for this machine: quire key create ${identity.user} --name NAME --scope write --device`,
    );
  }
  return identity;
}

/** One summary line of a run. */
export function describe(result: PassResult): string {
  const parts = [`${result.downloaded} down`, `${result.uploaded} up`, `${result.deleted} deleted`];
  if (result.merged) parts.push(`${result.merged} merged`);
  if (result.conflicts.length) parts.push(`${result.conflicts.length} conflict cop${result.conflicts.length === 1 ? 'y' : 'ies'}`);
  if (result.refused) parts.push(`${result.refused} refused`);
  if (result.pending) parts.push(`${result.pending} left for next time`);
  return `synced: ${parts.join(', ')}`;
}

/** One client per folder: `.quire-sync/lock` holds its pid; a lock whose process is gone (a kill) is taken over. */
function lockFolder(dir: string): () => void {
  const file = join(dir, STATE_FOLDER, 'lock');
  return pidLock(file, (pid) =>
    pid
      ? new SyncError('state', `Another quire sync (pid ${pid}) is syncing ${dir}.`)
      : new SyncError('state', `Could not take the lock ${file}.`),
  );
}
