import fs, { promises as fsp } from 'node:fs';
import { promisify } from 'node:util';
import { applyDelta } from './apply-delta.js';
import { inflateObject } from './inflate.js';

const readAt = promisify(fs.read);
// A pack's descriptor lives as long as its reader does: closed when the reader is collected.
const descriptors = new FinalizationRegistry<number>((fd) => fs.close(fd, () => undefined));
const TYPES = ['', 'commit', 'tree', 'blob', 'tag'] as const;
const OFS_DELTA = 6;
const REF_DELTA = 7;
/** Delta bases (and trees) kept per pack: a base may be a large blob, so few. */
const MAX_BASES = 64;

export interface PackedObject {
  type: string;
  data: Buffer;
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

  private constructor(
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
    const idx = await fsp.readFile(`${base}.idx`);
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
    const pack = new PackFile(fd, idx.subarray(idsAt, idsAt + count * 20), fanout, offsets, offsets.slice().sort(), packEnd);
    descriptors.register(pack, fd);
    return pack;
  }

  /** Offset of `oid` in the pack, or undefined. */
  find(oid: string): number | undefined {
    const key = Buffer.from(oid, 'hex');
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
    await readAt(this.fd, raw, 0, raw.length, offset);
    let at = 0;
    let byte = raw[at++];
    const type = (byte >> 4) & 7;
    while (byte & 0x80) byte = raw[at++];
    if (type === OFS_DELTA) {
      byte = raw[at++];
      let back = byte & 0x7f;
      while (byte & 0x80) {
        byte = raw[at++];
        back = (back + 1) * 128 + (byte & 0x7f);
      }
      const base = await this.base(offset - back, lookup);
      return { type: base.type, data: applyDelta(base.data, await inflateObject(raw.subarray(at))) };
    }
    if (type === REF_DELTA) {
      const base = await lookup(raw.subarray(at, at + 20).toString('hex'));
      return { type: base.type, data: applyDelta(base.data, await inflateObject(raw.subarray(at + 20))) };
    }
    return { type: TYPES[type], data: await inflateObject(raw.subarray(at)) };
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
    if (this.bases.size > MAX_BASES) this.bases.delete(this.bases.keys().next().value!);
  }
}
