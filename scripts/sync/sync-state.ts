import { appendFileSync, closeSync, fsyncSync, mkdirSync, openSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { SyncError } from './sync-error.js';

/** A file's last seen size, mtime and hash, and when that was seen (see LocalTree's racy check). */
export type StatEntry = [size: number, mtimeMs: number, hash: string, seenAtMs: number];

/** The maps a journal line changes: path → hash, or null to forget the path. */
type MapName = 'remote' | 'base' | 'refused';

/**
 * One row per path: [path, remote hash, base hash, ...stat entry]; "" for what is unknown,
 * and "=" for a hash equal to the one before it in the row (base = remote, scanned = base:
 * nearly every row once synced). Rows parse about twice as fast as three objects keyed by
 * 10,000 paths, and the "=" halve the file again; an idle run's time is mostly fixed costs,
 * reading this file among them.
 */
type Row = [path: string, remote: string, base: string, size?: number, mtimeMs?: number, hash?: string, seenAtMs?: number];

/** Who the state was last synced as; when the key is the same, a run need not ask the server again. */
export interface Binding {
  server: string;
  user: string;
  device: string;
  /** A digest of the key, never the key: tells whether a run uses the key the folder knows. */
  key: string;
}

interface StateFile extends Binding {
  /** 1: rows without "=" (read as well: "=" never appears in a hash). */
  version: 1 | 2;
  /** Names the journal that continues this file: a checkpoint starts a new one. */
  generation: number;
  cursor?: string;
  acked?: string;
  files: Row[];
  refused: Record<string, string>;
}

/** A row whose three hashes are one: "=" twice (base = remote, scanned = base). */
function inAgreement(row: Row): boolean {
  return row[1] !== '' && row[2] === '=' && row[5] === '=';
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
  refused = new Map<string, string>();
  stat = new Map<string, StatEntry>();
  /** Who the folder was synced as; undefined before the first checkpoint. */
  binding?: Binding;
  /**
   * True while the state is as saved, and as saved every path's remote, base and cached local
   * hash were one (and nothing refused): a pass whose scan finds the cache exact and whose
   * server has nothing new then has nothing to do, and need not compare path by path.
   * Cleared by any change, and by the pass that finds one (see runPass).
   */
  agreed = false;
  private generation = 0;
  private pending: string[] = [];
  private rebound = false;
  /** The saved rows whose remote and base hashes are not in maps yet: an idle pass never asks. */
  private packed?: Row[];
  private hashes = { remote: new Map<string, string>(), base: new Map<string, string>() };

  private constructor(readonly folder: string) {}

  get remote(): Map<string, string> {
    return this.unpacked().remote;
  }

  set remote(files: Map<string, string>) {
    this.unpacked().remote = files;
    this.agreed = false;
  }

  get base(): Map<string, string> {
    return this.unpacked().base;
  }

  /** The state saved in DIR (empty when none), with the journal since its last checkpoint replayed. */
  static open(dir: string): SyncState {
    const folder = join(dir, STATE_FOLDER);
    mkdirSync(folder, { recursive: true });
    const state = new SyncState(folder);
    let saved: StateFile | undefined;
    try {
      saved = JSON.parse(readFileSync(join(folder, 'state.json'), 'utf8')) as StateFile;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT')
        throw new SyncError('state', `${join(folder, 'state.json')} is unreadable: ${(err as Error).message}`);
    }
    if (saved) {
      const { server, user, device = '', key = '' } = saved;
      state.binding = { server, user, device, key };
      state.generation = saved.generation;
      state.cursor = saved.cursor;
      state.acked = saved.acked;
      let agreed = Object.keys(saved.refused).length === 0;
      for (const row of saved.files) {
        const remote = row[1];
        const base = row[2] === '=' ? remote : row[2];
        if (row.length > 3) state.stat.set(row[0], [row[3]!, row[4]!, row[5] === '=' ? base : row[5]!, row[6]!]);
        agreed &&= inAgreement(row);
      }
      state.packed = saved.files;
      state.agreed = agreed;
      state.refused = new Map(Object.entries(saved.refused));
    }
    state.replayJournal();
    return state;
  }

  /** True when the folder was synced with this server and this very key (so it is the device it was). */
  knows(server: string, keyDigest: string): boolean {
    return this.binding?.server === server && this.binding.key === keyDigest;
  }

  /** Records who syncs (saved at the next checkpoint); a folder of another user's vault is refused. */
  bind(binding: Binding): void {
    const saved = this.binding;
    if (saved && saved.user !== binding.user) {
      throw new SyncError(
        'state',
        `This folder syncs with the vault of "${saved.user}" on ${saved.server}, not with "${binding.user}": use another folder.`,
      );
    }
    this.rebound ||= !saved || saved.server !== binding.server || saved.key !== binding.key || saved.device !== binding.device;
    this.binding = binding;
  }

  /** Something not journaled changed (the binding): a checkpoint is due even when the pass did nothing. */
  get unsaved(): boolean {
    return this.rebound;
  }

  /** Records one step (applied now, durable at the next flush). */
  set(map: MapName, path: string, hash: string | null): void {
    this.agreed = false;
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
    if (!this.binding) throw new Error('SyncState.checkpoint before bind');
    const previous = this.generation;
    const data: StateFile = {
      version: 2,
      generation: previous + 1,
      ...this.binding,
      cursor: this.cursor,
      acked: this.acked,
      files: [...new Set([...this.remote.keys(), ...this.base.keys(), ...this.stat.keys()])].map((path) => this.row(path)),
      refused: Object.fromEntries(this.refused),
    };
    // Loaded when first needed: an idle run checkpoints nothing.
    const { atomicWriteFile } = await import('../../vault-store/atomic-file.js');
    await atomicWriteFile(join(this.folder, 'state.json'), JSON.stringify(data));
    this.generation = previous + 1;
    this.rebound = false;
    this.agreed = this.refused.size === 0 && data.files.every(inAgreement);
    rmSync(this.journal(previous), { force: true });
    this.pending = [];
  }

  private row(path: string): Row {
    const remote = this.remote.get(path) ?? '';
    const base = this.base.get(path) ?? '';
    const stat = this.stat.get(path);
    const row: Row = [path, remote, base !== '' && base === remote ? '=' : base];
    if (stat) row.push(stat[0], stat[1], stat[2] === base ? '=' : stat[2], stat[3]);
    return row;
  }

  private unpacked(): { remote: Map<string, string>; base: Map<string, string> } {
    const rows = this.packed;
    if (rows) {
      this.packed = undefined;
      for (const row of rows) {
        const remote = row[1];
        const base = row[2] === '=' ? remote : row[2];
        if (remote) this.hashes.remote.set(row[0], remote);
        if (base) this.hashes.base.set(row[0], base);
      }
    }
    return this.hashes;
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
      this.agreed = false;
      if (hash === null) this[map].delete(path);
      else this[map].set(path, hash);
    }
  }
}
