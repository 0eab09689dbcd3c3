import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { hashBlob } from '../../vault-store/git/hash-blob.js';
import type { LocalFile } from './local-tree.js';
import type { Action } from './plan.js';
import type { PassContext, PassResult } from './pass-context.js';
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
  constructor(
    readonly ctx: PassContext,
    /** The folder as the pass scanned it. */
    readonly local: Map<string, LocalFile>,
    readonly result: PassResult,
  ) {}

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
      const bytes = hash === undefined || !this.ctx.bases.keeps(path) ? undefined : this.readLocal(path);
      if (bytes) this.ctx.bases.put(path, hash!, bytes);
    }
  }

  async download(actions: Of<'download'>[]): Promise<void> {
    if (!actions.length) return;
    const { remote, report, files, state } = this.ctx;
    const fetch = (batch: Of<'download'>[]) => {
      const reading = remote.read(batch.map((a) => a.path));
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
            if (await this.writeLocal(path, file.bytes, file.hash, this.local.get(path) ?? null)) {
              if (state.remote.get(path) !== file.hash) state.set('remote', path, file.hash);
              this.result.downloaded++;
              bytes += file.bytes.byteLength;
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
        if (this.ctx.files.remove(path, this.local.get(path) ?? null) === 'busy') {
          this.result.pending++;
          return;
        }
        this.ctx.state.set('base', path, null);
        this.result.deleted++;
      });
    }
    await this.ctx.files.settle();
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
              bytes += data.byteLength;
            }
          }),
        ),
      );
      state.flush();
      report.advance(batch.length, bytes);
    }
  }

  /** The local file's bytes when they are still what the scan hashed, else undefined (pending). */
  readLocal(path: string): Uint8Array | undefined {
    const seen = this.local.get(path);
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

  /** Writes a file the server has (`hash`) and records it as the new base; false when the local file moved on. */
  async writeLocal(path: string, bytes: Uint8Array, hash: string, expect: LocalFile | null): Promise<boolean> {
    const written = await this.ctx.files.write(path, bytes, expect);
    if (written === 'busy') {
      this.result.pending++;
      return false;
    }
    const { state, bases } = this.ctx;
    bases.put(path, hash, bytes);
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
  async send(path: string, bytes: Uint8Array, base: string | null, recordBase = true): Promise<boolean> {
    const { remote, state, bases } = this.ctx;
    const localHash = hashBlob(bytes);
    try {
      const hash = await remote.write(path, bytes, base);
      // Should the server store other bytes than sent, its version comes down next pass.
      state.set('remote', path, hash);
      if (recordBase) {
        state.set('base', path, localHash);
        bases.put(path, localHash, bytes);
      }
      return true;
    } catch (err) {
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
