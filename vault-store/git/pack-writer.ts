import { createHash, randomBytes } from 'node:crypto';
import { closeSync, fdatasync as fdatasyncCb, mkdirSync, openSync, renameSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { crc32 } from 'node:zlib';
import { fsyncPath } from '../atomic-file.js';

const fdatasync = promisify(fdatasyncCb);

/** One object as a pack holds it whole (no delta): its id and the entry's bytes (header, then zlib). */
export interface PackEntry {
  oid: string;
  bytes: Buffer;
}

const TYPE_CODE: Record<string, number> = { commit: 1, tree: 2, blob: 3 };

/** A pack entry for an object: git's type-and-size header, then the deflated body as `deflated` holds it. */
export function packEntry(oid: string, type: string, size: number, deflated: Uint8Array): PackEntry {
  const header: number[] = [];
  let byte = (TYPE_CODE[type] << 4) | (size & 0x0f);
  for (let rest = Math.floor(size / 16); rest > 0; rest = Math.floor(rest / 128)) {
    header.push(byte | 0x80);
    byte = rest & 0x7f;
  }
  header.push(byte);
  return { oid, bytes: Buffer.concat([Buffer.from(header), deflated]) };
}

/** Where an object lies in a pack, as its index lists it. */
export interface IndexedObject {
  oid: string;
  crc: number;
  offset: number;
}

/**
 * A version 2 pack of `entries` and its version 2 index (gitformat-pack), as `git index-pack`
 * would write them; `name` is the pack's checksum, which names both files.
 */
export function buildPack(entries: readonly PackEntry[]): { pack: Buffer; idx: Buffer; name: string } {
  const header = packHeader(entries.length);
  const objects: IndexedObject[] = [];
  let at = header.length;
  for (const e of entries) {
    objects.push({ oid: e.oid, crc: crc32(e.bytes), offset: at });
    at += e.bytes.length;
  }
  const body = Buffer.concat([header, ...entries.map((e) => e.bytes)], at);
  const checksum = createHash('sha1').update(body).digest();
  return { pack: Buffer.concat([body, checksum]), idx: packIndex(objects, checksum), name: checksum.toString('hex') };
}

/** The 12 bytes that open a version 2 pack of `count` objects. */
export function packHeader(count: number): Buffer {
  const header = Buffer.alloc(12);
  header.write('PACK', 0, 'latin1');
  header.writeUInt32BE(2, 4);
  header.writeUInt32BE(count, 8);
  return header;
}

/** A version 2 pack index of `objects` (ids distinct, offsets under 2 GiB) for the pack whose checksum is `checksum`. */
export function packIndex(objects: readonly IndexedObject[], checksum: Buffer): Buffer {
  const sorted = [...objects].sort((a, b) => (a.oid < b.oid ? -1 : a.oid > b.oid ? 1 : 0));
  const n = sorted.length;
  const idx = Buffer.alloc(8 + 256 * 4 + n * 28 + 40);
  idx.writeUInt32BE(0xff744f63, 0);
  idx.writeUInt32BE(2, 4);
  const idsAt = 8 + 256 * 4;
  const crcAt = idsAt + n * 20;
  const offsetAt = crcAt + n * 4;
  const fanout = new Uint32Array(256);
  sorted.forEach((o, k) => {
    if (o.offset >= 0x80000000) throw new Error('a pack of 2 GiB or more is not written by Quire');
    idx.write(o.oid, idsAt + k * 20, 20, 'hex');
    idx.writeUInt32BE(o.crc, crcAt + k * 4);
    idx.writeUInt32BE(o.offset, offsetAt + k * 4);
    fanout[parseInt(o.oid.slice(0, 2), 16)]++;
  });
  for (let b = 0, sum = 0; b < 256; b++) idx.writeUInt32BE((sum += fanout[b]), 8 + b * 4);
  checksum.copy(idx, offsetAt + n * 4);
  createHash('sha1')
    .update(idx.subarray(0, idx.length - 20))
    .digest()
    .copy(idx, idx.length - 20);
  return idx;
}

/**
 * Puts a pack and its index into `objects/pack` durably: both written under git's own temp
 * names (`tmp_pack_*`, `tmp_idx_*`, which `git gc` clears when a crash leaves them), fsynced,
 * renamed (the pack first: git finds a pack by its index), then the folder fsynced. Returns
 * the path without extension. The file steps are synchronous, as for loose objects (see
 * object-writer.ts); the fsyncs are not.
 */
export async function writePackFiles(gitdir: string, built: { pack: Buffer; idx: Buffer; name: string }): Promise<string> {
  return placePack(gitdir, async (fd) => {
    writeAll(fd, built.pack);
    return { idx: built.idx, name: built.name };
  });
}

/**
 * `writePackFiles` for a pack written by `fill` into the temp file it is given (by
 * descriptor); `fill` returns the pack's index and name once the pack is written.
 */
export async function placePack(gitdir: string, fill: (fd: number) => Promise<{ idx: Buffer; name: string }>): Promise<string> {
  const dir = join(gitdir, 'objects', 'pack');
  const suffix = randomBytes(6).toString('hex');
  const temps = [join(dir, `tmp_pack_${suffix}`), join(dir, `tmp_idx_${suffix}`)];
  mkdirSync(dir, { recursive: true });
  const fds: number[] = [];
  let base: string;
  try {
    fds.push(openSync(temps[0], 'wx', 0o444));
    const built = await fill(fds[0]);
    fds.push(openSync(temps[1], 'wx', 0o444));
    writeAll(fds[1], built.idx);
    // Both flushed at once: the batch waits for one fsync's latency, not two.
    await Promise.all(fds.map((fd) => fdatasync(fd)));
    base = join(dir, `pack-${built.name}`);
    renameSync(temps[0], `${base}.pack`);
    renameSync(temps[1], `${base}.idx`);
  } catch (err) {
    for (const temp of temps) rmSync(temp, { force: true });
    throw err;
  } finally {
    for (const fd of fds) closeSync(fd);
  }
  await fsyncPath(dir);
  return base;
}

export function writeAll(fd: number, bytes: Uint8Array): void {
  for (let at = 0; at < bytes.length;) at += writeSync(fd, bytes, at);
}
