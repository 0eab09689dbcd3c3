import { appendFileSync, closeSync, fsyncSync, mkdirSync, openSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { cacheDigest, type StatEntry } from './scan-digest.js';
import { SyncError } from './sync-error.js';

export type { StatEntry } from './scan-digest.js';

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

/**
 * Format 3: this header as a line of JSON, then the rows as a second line, parsed only when
 * a pass needs them (an idle run does not). 1 and 2: one object holding the rows as `files`
 * (1: without "=", read as well: "=" never appears in a hash).
 */
interface StateFile extends Binding {
  version: 1 | 2 | 3;
  /** Names the journal that continues this file: a checkpoint starts a new one. */
  generation: number;
  cursor?: string;
  acked?: string;
  files?: Row[];
  refused: Record<string, string>;
  /** Every row in agreement (see `SyncState.agreed`); format 3. */
  agreed?: boolean;
  /** When in agreement: the digest of the folder's files as the stat cache knew them (see ScanDigest). */
  scan?: string;
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
  /** Who the folder was synced as; undefined before the first checkpoint. */
  binding?: Binding;
  /**
   * True while the state is as saved, and as saved every path's remote, base and cached local
   * hash were one (and nothing refused): a pass whose scan finds the cache exact and whose
   * server has nothing new then has nothing to do, and need not compare path by path.
   * Cleared by any change, and by the pass that finds one (see runPass).
   */
  agreed = false;
  /** The digest of the folder saved with a state in agreement: a folder that still has it is as cached. */
  savedScan?: string;
  private generation = 0;
  private pending: string[] = [];
  private rebound = false;
  /** The saved rows, not in maps yet: an idle pass never asks. */
  private packed?: () => Row[];
  private maps = { remote: new Map<string, string>(), base: new Map<string, string>(), stat: new Map<string, StatEntry>() };

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

  /** A cache of local hashes by size and mtime, so a scan reads no file it has seen unchanged. */
  get stat(): Map<string, StatEntry> {
    return this.unpacked().stat;
  }

  /** The state saved in DIR (empty when none), with the journal since its last checkpoint replayed. */
  static open(dir: string): SyncState {
    const folder = join(dir, STATE_FOLDER);
    mkdirSync(folder, { recursive: true });
    const state = new SyncState(folder);
    let saved: StateFile | undefined;
    let rows: () => Row[] = () => saved?.files ?? [];
    try {
      const text = readFileSync(join(folder, 'state.json'), 'utf8');
      const split = text.indexOf('\n');
      saved = JSON.parse(split === -1 ? text : text.slice(0, split)) as StateFile;
      if (split !== -1) rows = () => JSON.parse(text.slice(split + 1)) as Row[];
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
      state.packed = rows;
      state.refused = new Map(Object.entries(saved.refused));
      state.agreed = state.refused.size === 0 && (saved.version === 3 ? saved.agreed === true : saved.files!.every(inAgreement));
      if (state.agreed) state.savedScan = saved.scan;
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
    const rows = [...new Set([...this.remote.keys(), ...this.base.keys(), ...this.stat.keys()])].map((path) => this.row(path));
    const agreed = this.refused.size === 0 && rows.every(inAgreement);
    const scan = agreed ? cacheDigest(this.stat) : undefined;
    const data: StateFile = {
      version: 3,
      generation: previous + 1,
      ...this.binding,
      cursor: this.cursor,
      acked: this.acked,
      refused: Object.fromEntries(this.refused),
      agreed,
      ...(scan ? { scan } : {}),
    };
    // Loaded when first needed: an idle run checkpoints nothing.
    const { atomicWriteFile } = await import('../../vault-store/atomic-file.js');
    await atomicWriteFile(join(this.folder, 'state.json'), `${JSON.stringify(data)}\n${JSON.stringify(rows)}`);
    this.generation = previous + 1;
    this.rebound = false;
    this.agreed = agreed;
    this.savedScan = scan;
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

  private unpacked(): SyncState['maps'] {
    const packed = this.packed;
    if (packed) {
      this.packed = undefined;
      for (const row of packed()) {
        const remote = row[1];
        const base = row[2] === '=' ? remote : row[2];
        if (remote) this.maps.remote.set(row[0], remote);
        if (base) this.maps.base.set(row[0], base);
        if (row.length > 3) this.maps.stat.set(row[0], [row[3]!, row[4]!, row[5] === '=' ? base : row[5]!, row[6]!]);
      }
    }
    return this.maps;
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
