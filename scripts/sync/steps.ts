import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { hashBlob } from '../../vault-store/git/hash-blob.js';
import { BIG_FILE_BYTES, FileMoved, type FileSource, type UploadBody } from './big-files.js';
import { BaseStore } from './base-store.js';
import { LocalFiles } from './local-files.js';
import type { LocalFile } from './local-tree.js';
import type { Action } from './plan.js';
import type { PassContext, PassResult } from './pass-context.js';
import type { Fetched, Spill } from './remote.js';
import { SyncError } from './sync-error.js';

type Of<K extends Action['kind']> = Extract<Action, { kind: K }>;

const UPLOADS_AT_ONCE = 4;
/** Batches of downloads requested ahead of the one being written. */
const READS_AHEAD = 2;

/**
 * The steps of a pass, each recorded in the state as it lands: a file written here is
 * journaled with the hash it has, a file sent there with the hash the server answered. A step
 * that fails for one file (a path the server refuses, a file an editor holds) is reported and
 * the pass goes on; what cannot go on (a full disk, a revoked key) ends the run.
 */
export class Steps {
  /** Writes into the folder. */
  readonly files: LocalFiles;
  /** The texts of the last synced pages, the bases of merges. */
  readonly bases: BaseStore;

  constructor(
    readonly ctx: PassContext,
    /** The folder as the pass scanned it. */
    readonly local: Map<string, LocalFile>,
    readonly result: PassResult,
  ) {
    this.files = new LocalFiles(ctx.dir);
    this.bases = new BaseStore(ctx.state.folder);
  }

  /** Runs one file's step; a failure that is this file's alone is reported, not thrown. */
  async guard(path: string, step: () => Promise<void>): Promise<void> {
    try {
      await step();
    } catch (err) {
      if (!(err instanceof SyncError) || err.fatal || err.kind === 'network') throw err;
      this.ctx.report.line(`${path}: ${err.message}`);
      this.result.refused++;
    }
  }

  async agree(actions: Of<'agree'>[]): Promise<void> {
    for (const { path, hash } of actions) {
      this.ctx.state.set('base', path, hash ?? null);
      const bytes = hash === undefined || !this.bases.keeps(path) ? undefined : this.readLocal(path);
      if (bytes instanceof Uint8Array) this.bases.put(path, hash!, bytes);
    }
  }

  async download(actions: Of<'download'>[]): Promise<void> {
    if (!actions.length) return;
    const { remote, report, state } = this.ctx;
    const { files } = this;
    const fetch = (batch: Of<'download'>[]) => {
      const reading = remote.read(
        batch.map((a) => a.path),
        this.spill,
      );
      reading.catch(() => undefined); // awaited in turn; a failure ends the pass there
      return reading;
    };
    report.begin('downloading', actions.length);
    const batches: Of<'download'>[][] = [];
    for (let i = 0; i < actions.length; i += remote.readBatch) batches.push(actions.slice(i, i + remote.readBatch));
    // The server reads the next batches while this one is written: fetches overlap, writes
    // and their journal lines stay in order, one batch at a time.
    const fetches = batches.map((batch, i) => (i < READS_AHEAD ? fetch(batch) : undefined));
    for (const [i, batch] of batches.entries()) {
      if (i + READS_AHEAD < batches.length) fetches[i + READS_AHEAD] = fetch(batches[i + READS_AHEAD]);
      const got = await fetches[i]!;
      fetches[i] = undefined;
      let bytes = 0;
      await Promise.all(
        batch.map(({ path }) =>
          this.guard(path, async () => {
            const file = got.get(path);
            if (!file) return; // deleted meanwhile: the next change log says so
            if (await this.writeLocal(path, file, this.local.get(path) ?? null)) {
              if (state.remote.get(path) !== file.hash) state.set('remote', path, file.hash);
              this.result.downloaded++;
              bytes += 'bytes' in file ? file.bytes.byteLength : file.size;
            }
          }),
        ),
      );
      await files.settle();
      state.flush();
      report.advance(batch.length, bytes);
    }
  }

  async deleteLocal(actions: Of<'delete-local'>[]): Promise<void> {
    for (const { path } of actions) {
      await this.guard(path, async () => {
        if (this.files.remove(path, this.local.get(path) ?? null) === 'busy') {
          this.result.pending++;
          return;
        }
        this.ctx.state.set('base', path, null);
        this.result.deleted++;
      });
    }
    await this.files.settle();
    this.ctx.state.flush();
  }

  async upload(actions: (Of<'upload'> | Of<'delete-remote'>)[]): Promise<void> {
    if (!actions.length) return;
    const { report, state } = this.ctx;
    report.begin('uploading', actions.length);
    for (let i = 0; i < actions.length; i += UPLOADS_AT_ONCE) {
      const batch = actions.slice(i, i + UPLOADS_AT_ONCE);
      let bytes = 0;
      await Promise.all(
        batch.map((action) =>
          this.guard(action.path, async () => {
            if (action.kind === 'delete-remote') {
              if (await this.sendDelete(action.path, action.base)) this.result.deleted++;
              return;
            }
            const data = this.readLocal(action.path);
            if (!data) return;
            if (await this.send(action.path, data, action.base)) {
              this.result.uploaded++;
              bytes += data instanceof Uint8Array ? data.byteLength : data.size;
            }
          }),
        ),
      );
      state.flush();
      report.advance(batch.length, bytes);
    }
  }

  /** Big downloads are written beside their place as they arrive. */
  readonly spill: Spill = (path, size, bytes) => this.files.spill(path, size, bytes);

  /**
   * The local file's bytes when they are still what the scan hashed, else undefined
   * (pending); a big file as a source read from disk when sent (checked as it goes).
   */
  readLocal(path: string): UploadBody | undefined {
    const seen = this.local.get(path);
    if (seen && seen.size > BIG_FILE_BYTES) return { file: join(this.ctx.dir, path), size: seen.size, hash: seen.hash };
    let bytes: Buffer | undefined;
    try {
      bytes = readFileSync(join(this.ctx.dir, path));
    } catch {
      bytes = undefined;
    }
    if (!bytes || !seen || hashBlob(bytes) !== seen.hash) {
      this.result.pending++;
      return undefined;
    }
    return bytes;
  }

  /** Writes a file the server has and records it as the new base; false when the local file moved on. */
  async writeLocal(path: string, file: Fetched, expect: LocalFile | null): Promise<boolean> {
    const { hash } = file;
    const written = await this.files.write(path, 'bytes' in file ? file.bytes : file, expect);
    if (written === 'busy') {
      this.result.pending++;
      return false;
    }
    const { state } = this.ctx;
    const { bases } = this;
    if ('bytes' in file) bases.put(path, hash, file.bytes);
    state.set('base', path, hash);
    state.stat.set(path, [written.size, written.mtimeMs, hash, Date.now()]);
    this.local.set(path, { ...written, hash });
    return true;
  }

  /**
   * Sends the local bytes where the server still has `base`. The server's answer is the new
   * base; when it moved meanwhile (409), its hash is noted and the path waits for the next
   * pass, which resolves it as a change on both sides. `recordBase` false: the caller makes
   * the folder match first (a merge), and only then is the server's hash the base.
   */
  async send(path: string, body: UploadBody, base: string | null, recordBase = true): Promise<boolean> {
    const { remote, state } = this.ctx;
    const { bases } = this;
    const bytes = body instanceof Uint8Array ? body : undefined;
    const localHash = bytes ? hashBlob(bytes) : (body as FileSource).hash;
    try {
      const hash = await remote.write(path, body, base);
      // Should the server store other bytes than sent, its version comes down next pass.
      state.set('remote', path, hash);
      if (recordBase) {
        state.set('base', path, localHash);
        if (bytes) bases.put(path, localHash, bytes);
      }
      return true;
    } catch (err) {
      if (err instanceof FileMoved) {
        this.result.pending++;
        return false;
      }
      if (this.movedOn(path, err)) return false;
      if (err instanceof SyncError && err.kind === 'refused') state.set('refused', path, localHash);
      throw err;
    }
  }

  async sendDelete(path: string, base: string): Promise<boolean> {
    try {
      await this.ctx.remote.remove(path, base);
    } catch (err) {
      if (this.movedOn(path, err)) return false;
      throw err;
    }
    this.ctx.state.set('remote', path, null);
    this.ctx.state.set('base', path, null);
    return true;
  }

  /** A 409: the server's file is no longer `base`; remembers what it is now, for the next pass. */
  private movedOn(path: string, err: unknown): boolean {
    if (!(err instanceof SyncError && err.code === 'CONFLICT')) return false;
    const current = err.details.current_hash;
    this.ctx.state.set('remote', path, typeof current === 'string' ? current : null);
    this.result.pending++;
    return true;
  }
}
