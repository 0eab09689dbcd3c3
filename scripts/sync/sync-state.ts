import { appendFileSync, closeSync, fsyncSync, mkdirSync, openSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { atomicWriteFile } from '../../vault-store/atomic-file.js';
import { SyncError } from './sync-error.js';

/** A file's last seen size, mtime and hash, and when that was seen (see LocalTree's racy check). */
export type StatEntry = [size: number, mtimeMs: number, hash: string, seenAtMs: number];

/** The maps a journal line changes: path → hash, or null to forget the path. */
type MapName = 'remote' | 'base' | 'refused';

/**
 * One row per path: [path, remote hash, base hash, ...stat entry], empty strings for what is
 * unknown. Rows parse about twice as fast as three objects keyed by 10,000 paths, and an
 * idle run's time is mostly reading this file and stat-ing the folder.
 */
type Row = [path: string, remote: string, base: string, ...stat: StatEntry | []];

interface StateFile {
  version: 1;
  /** Names the journal that continues this file: a checkpoint starts a new one. */
  generation: number;
  server: string;
  user: string;
  cursor?: string;
  acked?: string;
  files: Row[];
  refused: Record<string, string>;
}

/** The folder the client keeps beside the synced files; never synced itself. */
export const STATE_FOLDER = '.quire-sync';

/**
 * What the client remembers between runs, in DIR/.quire-sync:
 * - `remote`: the server's files as of `cursor` (path → blob id), so a change not applied
 *   yet (a file busy in an editor, a crash) is still known at the next run;
 * - `base`: the version both sides last agreed on, per path — what "changed since the last
 *   sync" is measured against, and whose text (in `base/`) is the merge base;
 * - `refused`: local files the server refused, by the hash refused, so each is reported once;
 * - `stat`: a cache of local hashes by size and mtime, so an idle run reads no file.
 * `state.json` is replaced atomically (temp, fsync, rename) at checkpoints; between them each
 * step appends a line to `journal.<generation>` (fsync'd per batch) and a re-run replays it, so a kill at
 * any moment loses at most the step in flight, which the hashes on disk then reveal.
 */
export class SyncState {
  cursor?: string;
  acked?: string;
  remote = new Map<string, string>();
  base = new Map<string, string>();
  refused = new Map<string, string>();
  stat = new Map<string, StatEntry>();
  private generation = 0;
  private pending: string[] = [];

  private constructor(
    readonly folder: string,
    readonly server: string,
    readonly user: string,
  ) {}

  static open(dir: string, server: string, user: string): SyncState {
    const folder = join(dir, STATE_FOLDER);
    mkdirSync(folder, { recursive: true });
    const state = new SyncState(folder, server, user);
    let saved: StateFile | undefined;
    try {
      saved = JSON.parse(readFileSync(join(folder, 'state.json'), 'utf8')) as StateFile;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT')
        throw new SyncError('state', `${join(folder, 'state.json')} is unreadable: ${(err as Error).message}`);
    }
    if (saved) {
      if (saved.user !== user) {
        throw new SyncError(
          'state',
          `This folder syncs with the vault of "${saved.user}" on ${saved.server}, not with "${user}": use another folder.`,
        );
      }
      state.generation = saved.generation;
      state.cursor = saved.cursor;
      state.acked = saved.acked;
      for (const [path, remote, base, ...stat] of saved.files) {
        if (remote) state.remote.set(path, remote);
        if (base) state.base.set(path, base);
        if (stat.length) state.stat.set(path, stat as StatEntry);
      }
      state.refused = new Map(Object.entries(saved.refused));
    }
    state.replayJournal();
    return state;
  }

  /** Records one step (applied now, durable at the next flush). */
  set(map: MapName, path: string, hash: string | null): void {
    if (hash === null) this[map].delete(path);
    else this[map].set(path, hash);
    this.pending.push(JSON.stringify([map, path, hash]));
  }

  /** Makes the recorded steps durable: one append and one fsync. */
  flush(): void {
    if (!this.pending.length) return;
    const fd = openSync(this.journal(this.generation), 'a');
    try {
      appendFileSync(fd, `${this.pending.join('\n')}\n`);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    this.pending = [];
  }

  /** Writes everything to state.json atomically and empties the journal. */
  async checkpoint(): Promise<void> {
    const previous = this.generation;
    const data: StateFile = {
      version: 1,
      generation: previous + 1,
      server: this.server,
      user: this.user,
      cursor: this.cursor,
      acked: this.acked,
      files: [...new Set([...this.remote.keys(), ...this.base.keys(), ...this.stat.keys()])].map((path): Row => [
        path,
        this.remote.get(path) ?? '',
        this.base.get(path) ?? '',
        ...(this.stat.get(path) ?? []),
      ]),
      refused: Object.fromEntries(this.refused),
    };
    await atomicWriteFile(join(this.folder, 'state.json'), JSON.stringify(data));
    this.generation = previous + 1;
    rmSync(this.journal(previous), { force: true });
    this.pending = [];
  }

  private journal(generation: number): string {
    return join(this.folder, `journal.${generation}`);
  }

  private replayJournal(): void {
    let text: string;
    try {
      text = readFileSync(this.journal(this.generation), 'utf8');
    } catch {
      return;
    }
    for (const line of text.split('\n')) {
      let entry: [MapName, string, string | null];
      try {
        entry = JSON.parse(line);
      } catch {
        continue; // the line a kill cut short: its step shows in the hashes on disk
      }
      const [map, path, hash] = entry;
      if (hash === null) this[map].delete(path);
      else this[map].set(path, hash);
    }
  }
}
