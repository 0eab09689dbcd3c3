import { randomBytes } from 'node:crypto';
import { promises as fsp, readSync, writevSync } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { crc32 } from 'node:zlib';
import type { AppendFile } from '../persist.js';
import { dropBytes, IOV_MAX, writeChunks } from '../section-write.js';

/** Bodies set since the last append are written out past this much text: memory stays bounded under writes. */
const FLUSH_CHARS = 4 << 20;
/** Appends and compaction write about this much per call. */
const BATCH_BYTES = 1 << 20;
/** Below this many dead bytes a compaction is not worth a new file. */
const MIN_DEAD_BYTES = 1 << 20;
/** A saved table holds, per id: start (float64), length (uint32), CRC-32 (uint32). */
const ENTRY_BYTES = 16;
/** Bodies up to this size are read into one buffer, shared by every store (reads are synchronous). */
const SCRATCH_BYTES = 64 << 10;
let scratchBuffer: Buffer | undefined;

/**
 * `length` bytes to read a body into, decoded into a string at once: the shared buffer, or a
 * new one past SCRATCH_BYTES (a new buffer per body was a third of reading one).
 */
function scratch(length: number): Buffer {
  if (length > SCRATCH_BYTES) return Buffer.allocUnsafe(length);
  scratchBuffer ??= Buffer.allocUnsafeSlow(SCRATCH_BYTES);
  return scratchBuffer.subarray(0, length);
}

/** What a save records of the bodies: the file, how much of it counts, and the table of ids. */
export interface BodySave extends AppendFile {
  table: Uint8Array[];
}

interface BodyFile {
  name: string;
  handle: FileHandle;
  /** Where the next append goes: bytes past the last snapshot's size are not yet named by it. */
  end: number;
}

/**
 * Page bodies by document id, for snippets, phrase checks and ask: held in the heap they cost
 * ~40 MB on 10k pages, so they live in one append-only file of the index folder, read back on
 * demand (one pread of a few KB from the page cache, checked against its CRC-32). A new or
 * changed body waits in memory until a few MB have gathered or the index is saved, then is
 * appended; the bytes it replaces stay (a snapshot on disk may still name them) until a save
 * finds more dead bytes than live ones and copies the live ones into a new file. A store
 * with no folder (a bare SearchIndex) keeps every body in memory.
 */
export class BodyStore {
  private starts = new Float64Array(0);
  private lengths = new Uint32Array(0);
  private crcs = new Uint32Array(0);
  private count = 0;
  private live = 0;
  private readonly pending = new Map<number, string>();
  private pendingChars = 0;
  private dir?: string;
  private file?: BodyFile;
  private onCorrupt?: () => void;

  /** The bodies a snapshot names; what a crashed process appended past them is cut off. */
  static async open(dir: string, append: AppendFile, table: Uint8Array): Promise<BodyStore> {
    const count = table.byteLength / ENTRY_BYTES;
    if (!Number.isInteger(count)) throw new Error('inconsistent bodies');
    const store = new BodyStore();
    const own = new Uint8Array(table).buffer; // a copy, aligned for the typed arrays
    store.starts = new Float64Array(own, 0, count);
    store.lengths = new Uint32Array(own, 8 * count, count);
    store.crcs = new Uint32Array(own, 12 * count, count);
    store.count = count;
    for (let id = 0; id < count; id++) {
      if (store.starts[id] + store.lengths[id] > append.size) throw new Error('inconsistent bodies');
      store.live += store.lengths[id];
    }
    const handle = await fsp.open(join(dir, append.file), 'r+');
    await handle.truncate(append.size).catch(async (err: unknown) => {
      await handle.close();
      throw err;
    });
    store.dir = dir;
    store.file = { name: append.file, handle, end: append.size };
    return store;
  }

  /** Ids the table covers; the documents table must cover at least as many. */
  get size(): number {
    return this.count;
  }

  /** Where a store built in memory appends from now on, and whom to tell of a body that fails its check. */
  async attach(dir: string, onCorrupt: () => void): Promise<void> {
    this.onCorrupt = onCorrupt;
    if (this.file) return;
    this.dir = dir;
    this.file = await this.newFile();
    if (this.pendingChars > FLUSH_CHARS) this.flush();
  }

  get(id: number): string {
    const body = this.pending.get(id);
    if (body !== undefined) return body;
    const length = id < this.count ? this.lengths[id] : 0;
    if (length === 0 || !this.file) return '';
    const bytes = scratch(length);
    for (let done = 0; done < length;) {
      const n = readSync(this.file.handle.fd, bytes, done, length - done, this.starts[id] + done);
      if (n === 0) return this.corrupt();
      done += n;
    }
    return crc32(bytes) === this.crcs[id] ? bytes.toString('utf8') : this.corrupt();
  }

  set(id: number, body: string): void {
    this.delete(id);
    this.pending.set(id, body);
    this.pendingChars += body.length;
    this.grow(id);
    if (this.pendingChars > FLUSH_CHARS) this.flush();
  }

  delete(id: number): void {
    const waiting = this.pending.get(id);
    if (waiting !== undefined) {
      this.pendingChars -= waiting.length;
      this.pending.delete(id);
    }
    if (id >= this.count) return;
    this.live -= this.lengths[id];
    this.starts[id] = this.lengths[id] = this.crcs[id] = 0;
  }

  /**
   * Appends what waits, compacts when dead bytes outweigh live ones, and returns the table
   * for a snapshot (a copy: the store goes on changing). Runs inside the write queue.
   */
  async save(): Promise<BodySave> {
    this.flush();
    const dead = this.file ? this.file.end - this.live : 0;
    if (dead > Math.max(this.live, MIN_DEAD_BYTES)) await this.compact();
    const file = this.file;
    if (!file) throw new Error('the bodies have no folder to be saved in');
    const n = this.count;
    return {
      file: file.name,
      size: file.end,
      table: [this.starts.slice(0, n), this.lengths.slice(0, n), this.crcs.slice(0, n)].map(bytesOf),
    };
  }

  async close(): Promise<void> {
    await this.file?.handle.close();
  }

  private corrupt(): string {
    const tell = this.onCorrupt;
    this.onCorrupt = undefined;
    tell?.();
    return '';
  }

  /** Appends every waiting body, about a MB per write; synchronous so that `set` stays so. */
  private flush(): void {
    const file = this.file;
    if (!file || this.pending.size === 0) return;
    let ids: number[] = [];
    let batch: Buffer[] = [];
    let size = 0;
    const write = () => {
      for (let rest: Uint8Array[] = batch.filter((b) => b.byteLength > 0), at = file.end; rest.length > 0;) {
        const n = writevSync(file.handle.fd, rest.slice(0, IOV_MAX), at);
        at += n;
        rest = dropBytes(rest, n);
      }
      ids.forEach((id, i) => {
        this.starts[id] = file.end;
        this.lengths[id] = batch[i].byteLength;
        this.crcs[id] = crc32(batch[i]);
        this.live += batch[i].byteLength;
        file.end += batch[i].byteLength;
      });
      [ids, batch, size] = [[], [], 0];
    };
    for (const [id, body] of this.pending) {
      ids.push(id);
      batch.push(Buffer.from(body, 'utf8'));
      size += batch[batch.length - 1].byteLength;
      if (size >= BATCH_BYTES) write();
    }
    write();
    this.pending.clear();
    this.pendingChars = 0;
  }

  /**
   * Copies the live bodies in id order into a new file, a MB at a time, and switches to it.
   * The old file stays on disk while the snapshot there names it; the next save deletes it.
   */
  private async compact(): Promise<void> {
    const old = this.file!;
    const next = await this.newFile();
    try {
      const starts = await this.copyLive(old, next);
      [this.file, this.starts, this.live] = [next, starts, next.end];
    } catch (err) {
      await next.handle.close();
      await fsp.rm(join(this.dir!, next.name), { force: true });
      throw err;
    }
    await old.handle.close();
  }

  /** Where each live body landed in `to`. */
  private async copyLive(from: BodyFile, to: BodyFile): Promise<Float64Array<ArrayBuffer>> {
    const starts = new Float64Array(this.starts.length);
    let batch: Buffer[] = [];
    let size = 0;
    const write = async () => {
      await writeChunks(to.handle, batch, to.end);
      to.end += size;
      [batch, size] = [[], 0];
    };
    for (let id = 0; id < this.count; id++) {
      const length = this.lengths[id];
      if (length === 0) continue;
      const bytes = Buffer.allocUnsafe(length);
      if (readSync(from.handle.fd, bytes, 0, length, this.starts[id]) !== length) throw new Error('bodies file cut short');
      batch.push(bytes);
      starts[id] = to.end + size;
      size += length;
      if (size >= BATCH_BYTES) await write();
    }
    await write();
    return starts;
  }

  /** A new file of the folder, named so that no snapshot names it already. */
  private async newFile(): Promise<BodyFile> {
    const name = `bodies-${randomBytes(6).toString('hex')}.dat`;
    return { name, handle: await fsp.open(join(this.dir!, name), 'wx+'), end: 0 };
  }

  private grow(id: number): void {
    if (id >= this.starts.length) {
      const capacity = Math.max(1024, (id + 1) * 2);
      this.starts = resized(this.starts, new Float64Array(capacity));
      this.lengths = resized(this.lengths, new Uint32Array(capacity));
      this.crcs = resized(this.crcs, new Uint32Array(capacity));
    }
    this.count = Math.max(this.count, id + 1);
  }
}

function resized<T extends Float64Array | Uint32Array>(from: T, to: T): T {
  to.set(from);
  return to;
}

function bytesOf(view: ArrayBufferView): Uint8Array {
  return new Uint8Array(view.buffer, view.byteOffset, view.byteLength);
}
