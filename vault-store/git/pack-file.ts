import fs from 'node:fs';
import { Readable } from 'node:stream';
import { promisify } from 'node:util';
import { applyDelta } from './apply-delta.js';
import { inflateObject } from './inflate.js';
import { inflatedRange, type ByteRange } from './inflate-stream.js';
import { baseDistance, deltaResultSize, entryHeader, HEADER_PROBE } from './pack-entry.js';

const readAt = promisify(fs.read);
// A pack's descriptor lives as long as its reader does: closed when the reader is collected.
const descriptors = new FinalizationRegistry<number>((fd) => fs.close(fd, () => undefined));
const TYPES = ['', 'commit', 'tree', 'blob', 'tag'] as const;
const OFS_DELTA = 6;
const REF_DELTA = 7;
/**
 * Bytes of delta bases (and trees) kept per pack. A history build reads every version of
 * every folder's tree, each the delta base of the next (fast-import) or of the one before
 * (git repack): a 64-entry cache thrashed once a vault had more folders than that, and each
 * read then resolved its chain again (11 object reads a tree on the 10k-page bench).
 */
const BASE_BYTES = 16 * 2 ** 20;
/**
 * Below this, a thread-pool round trip costs more than a positional read on the spot (as
 * for inflating, inflate.ts): a history build reads thousands of small trees one by one.
 */
const INLINE_BYTES = 64 * 1024;
/** Bytes of a packed object read at a time when it is streamed. */
const STREAM_CHUNK = 256 * 1024;

export interface PackedObject {
  type: string;
  data: Buffer;
}

export interface ObjectHeader {
  type: string;
  size: number;
}

/**
 * One packfile and its v2 index, read with positional reads and node's zlib. The index
 * gives each object's offset; the next offset in pack order bounds its compressed bytes,
 * so each object costs one read. Deltas are resolved against their base, found by offset
 * (OFS_DELTA) or id (REF_DELTA, through `lookup` since the base may be elsewhere).
 */
export class PackFile {
  /** Recently used delta bases: chains share them, and re-reading one means re-resolving it. */
  private readonly bases = new Map<number, Promise<PackedObject>>();
  /** Resolved sizes of the settled bases held (a pending one counts once it resolves). */
  private readonly sizes = new Map<number, number>();
  private baseBytes = 0;

  private constructor(
    /** The pack's path without `.pack` or `.idx`. */
    readonly path: string,
    private readonly fd: number,
    private readonly ids: Buffer,
    private readonly fanout: Uint32Array,
    /** Each object's offset, in index (object id) order. */
    private readonly offsets: Float64Array,
    /** The same offsets in pack order: an object ends where the next begins (typed arrays, not a map: 16 bytes an object). */
    private readonly starts: Float64Array,
    private readonly packEnd: number,
  ) {}

  /** Opens `<name>.idx` and `<name>.pack`; undefined for index versions other than 2. */
  static async open(base: string): Promise<PackFile | undefined> {
    // Synchronously: parsed right after anyway, and an asynchronous read's round trips each
    // waited for the request running (a vault reopened on a busy server).
    const idx = fs.readFileSync(`${base}.idx`);
    if (idx.readUInt32BE(0) !== 0xff744f63 || idx.readUInt32BE(4) !== 2) return undefined;
    const fanout = new Uint32Array(256);
    for (let i = 0; i < 256; i++) fanout[i] = idx.readUInt32BE(8 + i * 4);
    const count = fanout[255];
    const idsAt = 8 + 256 * 4;
    const smallAt = idsAt + count * 20 + count * 4;
    const largeAt = smallAt + count * 4;
    const offsets = new Float64Array(count);
    for (let i = 0; i < count; i++) {
      const small = idx.readUInt32BE(smallAt + i * 4);
      offsets[i] = small & 0x80000000 ? Number(idx.readBigUInt64BE(largeAt + (small & 0x7fffffff) * 8)) : small;
    }
    const fd = fs.openSync(`${base}.pack`, 'r');
    const packEnd = fs.fstatSync(fd).size - 20;
    const pack = new PackFile(base, fd, idx.subarray(idsAt, idsAt + count * 20), fanout, offsets, offsets.slice().sort(), packEnd);
    descriptors.register(pack, fd);
    return pack;
  }

  /** Offset of the object whose id's 20 bytes are `key` in the pack, or undefined. */
  find(key: Buffer): number | undefined {
    let lo = key[0] === 0 ? 0 : this.fanout[key[0] - 1];
    let hi = this.fanout[key[0]];
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      const cmp = this.ids.compare(key, 0, 20, mid * 20, mid * 20 + 20);
      if (cmp === 0) return this.offsets[mid];
      if (cmp < 0) lo = mid + 1;
      else hi = mid;
    }
    return undefined;
  }

  /** Where the object at `offset` ends: the next object's start, or the pack's trailer. */
  private end(offset: number): number {
    let lo = 0;
    let hi = this.starts.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.starts[mid] <= offset) lo = mid + 1;
      else hi = mid;
    }
    return lo < this.starts.length ? this.starts[lo] : this.packEnd;
  }

  /**
   * The type and size of the object at `offset`, from its header alone: a delta's size is
   * the start of the delta, its type its base's (found by offset, or through `lookup`).
   */
  async header(offset: number, lookup: (oid: string) => Promise<ObjectHeader>, probe = HEADER_PROBE): Promise<ObjectHeader> {
    const end = this.end(offset);
    const raw = Buffer.allocUnsafe(Math.min(probe, end - offset));
    await readAt(this.fd, raw, 0, raw.length, offset);
    const { code, size, at } = entryHeader(raw);
    if (code !== OFS_DELTA && code !== REF_DELTA) return { type: TYPES[code], size };
    const { back, at: delta } = code === OFS_DELTA ? baseDistance(raw, at) : { back: 0, at: at + 20 };
    const result = deltaResultSize(raw.subarray(delta));
    // A prefix too short for the delta's sizes: read more of it (never more than the entry).
    if (result === undefined) {
      if (raw.length === end - offset) throw new Error(`Malformed delta at ${offset}`);
      return this.header(offset, lookup, probe * 16);
    }
    const base = code === OFS_DELTA ? await this.header(offset - back, lookup) : await lookup(raw.subarray(at, at + 20).toString('hex'));
    return { type: base.type, size: result };
  }

  /**
   * The content of the object at `offset` (or `range` of it), inflated as it is read; undefined
   * for a delta, which is rebuilt whole from its base (`read`). git stores big files whole:
   * it deltifies nothing above core.bigFileThreshold (512 MiB), and below it the newest
   * version of a file is the one kept whole, the older ones deltas against it.
   */
  async stream(offset: number, range?: ByteRange): Promise<{ type: string; content: Readable } | undefined> {
    const end = this.end(offset);
    const raw = Buffer.allocUnsafe(Math.min(HEADER_PROBE, end - offset));
    await readAt(this.fd, raw, 0, raw.length, offset);
    const { code, at } = entryHeader(raw);
    if (code === OFS_DELTA || code === REF_DELTA) return undefined;
    // Nothing is read until the content is consumed.
    return { type: TYPES[code], content: inflatedRange(Readable.from(this.bytes(offset + at, end)), { range, skipHeader: false }) };
  }

  /**
   * Bytes `from` to `to` of the pack, a chunk at a time, by positional reads of the reader's
   * own descriptor: a `git gc` since may have deleted the pack, still readable through it,
   * and the generator holds the reader (whose collection closes the descriptor) until done.
   */
  private async *bytes(from: number, to: number): AsyncGenerator<Buffer> {
    for (let at = from; at < to;) {
      const chunk = Buffer.allocUnsafe(Math.min(STREAM_CHUNK, to - at));
      const { bytesRead } = await readAt(this.fd, chunk, 0, chunk.length, at);
      if (bytesRead === 0) throw new Error('pack file ends early');
      at += bytesRead;
      yield chunk.subarray(0, bytesRead);
    }
  }

  async read(offset: number, lookup: (oid: string) => Promise<PackedObject>): Promise<PackedObject> {
    const object = await this.readAt(offset, lookup);
    // History walks read a folder's tree version after version, and in a pack each is often
    // the next one's delta base: without this, each version read its predecessor again.
    if (object.type === 'tree') this.remember(offset, Promise.resolve(object));
    return object;
  }

  private async readAt(offset: number, lookup: (oid: string) => Promise<PackedObject>): Promise<PackedObject> {
    const end = this.end(offset);
    const raw = Buffer.allocUnsafe(end - offset);
    if (raw.length < INLINE_BYTES) fs.readSync(this.fd, raw, 0, raw.length, offset);
    else await readAt(this.fd, raw, 0, raw.length, offset);
    const { code: type, at, size } = entryHeader(raw);
    if (type === OFS_DELTA) {
      const { back, at: delta } = baseDistance(raw, at);
      const base = await this.base(offset - back, lookup);
      return { type: base.type, data: applyDelta(base.data, await inflateObject(raw.subarray(delta), size)) };
    }
    if (type === REF_DELTA) {
      const base = await lookup(raw.subarray(at, at + 20).toString('hex'));
      return { type: base.type, data: applyDelta(base.data, await inflateObject(raw.subarray(at + 20), size)) };
    }
    return { type: TYPES[type], data: await inflateObject(raw.subarray(at), size) };
  }

  private base(offset: number, lookup: (oid: string) => Promise<PackedObject>): Promise<PackedObject> {
    let hit = this.bases.get(offset);
    if (!hit) {
      hit = this.readAt(offset, lookup);
      hit.catch(() => this.bases.delete(offset));
    }
    this.remember(offset, hit);
    return hit;
  }

  private remember(offset: number, object: Promise<PackedObject>): void {
    this.bases.delete(offset);
    this.bases.set(offset, object);
    void object.then(
      ({ data }) => {
        if (this.bases.get(offset) !== object || this.sizes.has(offset)) return;
        this.sizes.set(offset, data.length);
        this.baseBytes += data.length;
        this.evict();
      },
      () => undefined,
    );
  }

  /** Forgets every cached base (after a history build filled the cache with trees no one reads again). */
  releaseBases(): void {
    this.bases.clear();
    this.sizes.clear();
    this.baseBytes = 0;
  }

  /** Drops the least recently used bases until the settled ones fit the budget. */
  private evict(): void {
    for (const [offset] of this.bases) {
      if (this.baseBytes <= BASE_BYTES) return;
      this.bases.delete(offset);
      this.baseBytes -= this.sizes.get(offset) ?? 0;
      this.sizes.delete(offset);
    }
  }
}
