import { createHash } from 'node:crypto';
import { closeSync, existsSync, openSync, promises as fsp, readdirSync, readFileSync, readSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { packHeader, packIndex, placePack, writeAll, type IndexedObject } from './pack-writer.js';

/** Packs smaller than this are merged, once there are MERGE_COUNT of them (each batch of commits writes one). */
const SMALL_BYTES = 4 << 20;
export const MERGE_COUNT = 16;
/** Files beside a pack that say git keeps it as it is (or that a merge would make wrong). */
const KEPT = ['.keep', '.promisor', '.mtimes', '.bitmap'];
const CHUNK = 1 << 20;

/**
 * Merges the small packs of `objects/pack` into one, so that a pack per batch does not leave
 * thousands of packs for every object lookup (ours and git's) to search. A pack's entries are
 * copied as they are, body after body: a delta's base is in the same pack at the same distance,
 * or named by id, so every entry stays valid, and the index is the sources' with shifted
 * offsets (same CRCs). The merged pack is durable before the sources are removed; a crash in
 * between leaves objects twice, which git allows. Left alone: packs of 4 MiB or more, packs
 * git keeps (`.keep`, promisor, cruft, bitmaps), everything when a multi-pack index lists
 * them, and a pack holding an object already taken from another. Returns the bases merged
 * and the new one, or undefined when fewer than MERGE_COUNT qualify.
 */
export async function mergeSmallPacks(gitdir: string): Promise<{ merged: string[]; base: string } | undefined> {
  const dir = join(gitdir, 'objects', 'pack');
  if (existsSync(join(dir, 'multi-pack-index'))) return undefined;
  // The scan is synchronous: a few small files, where each asynchronous round trip waited for
  // the writes then running (a merge begun at the 16th pack of a busy vault ended 18 writes later).
  const names = new Set(readOr(() => readdirSync(dir), [] as string[]));
  const sources: { base: string; objects: IndexedObject[]; size: number }[] = [];
  const seen = new Set<string>();
  for (const name of names) {
    if (!name.endsWith('.idx')) continue;
    const stem = name.slice(0, -4);
    if (!names.has(`${stem}.pack`) || KEPT.some((ext) => names.has(stem + ext))) continue;
    const base = join(dir, stem);
    const size = readOr(() => statSync(`${base}.pack`).size, undefined);
    if (size === undefined || size >= SMALL_BYTES) continue;
    const objects = readIndex(readOr(() => readFileSync(`${base}.idx`), Buffer.alloc(0)));
    if (!objects || objects.some((o) => seen.has(o.oid))) continue;
    for (const o of objects) seen.add(o.oid);
    sources.push({ base, objects, size });
  }
  if (sources.length < MERGE_COUNT) return undefined;

  const base = await placePack(gitdir, async (fd) => {
    const hash = createHash('sha1');
    const write = (bytes: Buffer) => {
      hash.update(bytes);
      writeAll(fd, bytes);
    };
    write(packHeader(sources.reduce((n, s) => n + s.objects.length, 0)));
    const objects: IndexedObject[] = [];
    let at = 12;
    const chunk = Buffer.allocUnsafe(CHUNK);
    for (const source of sources) {
      for (const o of source.objects) objects.push({ oid: o.oid, crc: o.crc, offset: o.offset - 12 + at });
      const src = openSync(`${source.base}.pack`, 'r');
      try {
        for (let pos = 12, end = source.size - 20; pos < end;) {
          const n = readSync(src, chunk, 0, Math.min(CHUNK, end - pos), pos);
          if (n === 0) throw new Error(`${source.base}.pack ended early`);
          write(chunk.subarray(0, n));
          pos += n;
          at += n;
        }
      } finally {
        closeSync(src);
      }
      // The event loop gets a turn between sources.
      await new Promise((resolve) => setImmediate(resolve));
    }
    const checksum = hash.digest();
    writeAll(fd, checksum);
    return { idx: packIndex(objects, checksum), name: checksum.toString('hex') };
  });
  const merged = sources.map((s) => s.base).filter((b) => b !== base);
  for (const b of merged) for (const ext of ['.idx', '.pack', '.rev']) await fsp.rm(b + ext, { force: true });
  return { merged, base };
}

/** What `read` gives, or `missing` when it throws (a pack git removed meanwhile). */
function readOr<T, M>(read: () => T, missing: M): T | M {
  try {
    return read();
  } catch {
    return missing;
  }
}

/** A version 2 pack index's objects; undefined for another version or one with offsets past 2 GiB. */
function readIndex(idx: Buffer): IndexedObject[] | undefined {
  if (idx.length < 8 + 1024 + 40 || idx.readUInt32BE(0) !== 0xff744f63 || idx.readUInt32BE(4) !== 2) return undefined;
  const count = idx.readUInt32BE(8 + 255 * 4);
  const idsAt = 8 + 1024;
  const crcAt = idsAt + count * 20;
  const offsetAt = crcAt + count * 4;
  if (idx.length < offsetAt + count * 4 + 40) return undefined;
  const objects: IndexedObject[] = [];
  for (let i = 0; i < count; i++) {
    const offset = idx.readUInt32BE(offsetAt + i * 4);
    if (offset & 0x80000000) return undefined;
    objects.push({ oid: idx.toString('hex', idsAt + i * 20, idsAt + i * 20 + 20), crc: idx.readUInt32BE(crcAt + i * 4), offset });
  }
  return objects;
}
