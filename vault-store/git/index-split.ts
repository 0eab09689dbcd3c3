import { IndexFileError, type IndexRecords } from './index-format.js';
import { decodeRecord, encodeEntry, recordNameAt, recordNameEnd } from './index-record.js';

/**
 * A split index (`git update-index --split-index`, `core.splitIndex`): `.git/index` holds the
 * entries changed since `sharedindex.<base>` was written, and its `link` extension says which
 * of the shared entries are deleted and which replaced (gitformat-index, "Split index").
 * The server reads such an index merged and writes a whole one back: valid for every git,
 * which splits it again at its next write when `core.splitIndex` is on. Writing split
 * ourselves would make libgit2-based tools (which refuse the `link` extension) unable to read
 * the folder's index (ARCHITECTURE.md, "The index").
 */
export interface SplitLink {
  /** Shared entries removed, by position. */
  deleted: Set<number>;
  /** Shared entries whose stat data, id or flags the split index's first entries replace, in order. */
  replaced: number[];
}

function corrupt(message: string): never {
  throw new IndexFileError('corrupt', `.git/index is corrupt: ${message}`);
}

/**
 * The set bits of git's EWAH bitmap at `at` (ewah/ewah_io.c): a bit count, a word count, the
 * 64-bit words, the position of the last marker word. Markers say how many words of all zeros
 * or all ones (bit 0) come first (bits 1–32), then how many literal words follow (bits 33–63).
 */
function ewahBits(data: Buffer, at: number, limit: number): [number[], number] {
  if (at + 8 > data.length) corrupt('truncated bitmap in the link extension');
  const words = data.readUInt32BE(at + 4);
  const end = at + 8 + words * 8 + 4;
  if (end > data.length) corrupt('truncated bitmap in the link extension');
  const bits: number[] = [];
  const set = (pos: number) => {
    if (pos >= limit) corrupt(`the link extension names entry ${pos} of a shared index of ${limit}`);
    bits.push(pos);
  };
  let pos = 0;
  for (let w = 0; w < words;) {
    const lo = data.readUInt32BE(at + 8 + w * 8 + 4);
    const hi = data.readUInt32BE(at + 8 + w * 8);
    const run = ((lo >>> 1) + (hi & 1) * 0x80000000) * 64;
    if (lo & 1) for (let k = 0; k < run; k++) set(pos + k);
    pos += run;
    const literals = hi >>> 1;
    w += 1;
    if (w + literals > words) corrupt('bitmap words run past the bitmap');
    for (let k = 0; k < literals; k++, w++) {
      const wordAt = at + 8 + w * 8;
      for (const [half, base] of [
        [data.readUInt32BE(wordAt + 4), 0],
        [data.readUInt32BE(wordAt), 32],
      ]) {
        for (let b = 0; b < 32 && half >>> b !== 0; b++) if ((half >>> b) & 1) set(pos + base + b);
      }
      pos += 64;
    }
  }
  return [bits, end];
}

/** The shared index's checksum that the `link` extension names: its file is `<gitdir>/sharedindex.<base>`. */
export function linkBase(data: Buffer): string {
  if (data.length < 20) corrupt('link extension too short');
  return data.toString('hex', 0, 20);
}

/** The `link` extension's bitmaps, checked against a shared index of `sharedCount` entries. */
export function parseLink(data: Buffer, sharedCount: number): SplitLink {
  if (data.length === 20) return { deleted: new Set(), replaced: [] };
  const [deleted, next] = ewahBits(data, 20, sharedCount);
  const [replaced, end] = ewahBits(data, next, sharedCount);
  if (end !== data.length) corrupt('garbage at the end of the link extension');
  return { deleted: new Set(deleted), replaced };
}

/** One record: inside `buf` at `at`, in the layout of versions 2 and 3. */
interface Rec {
  buf: Buffer;
  at: number;
}

const recordOf = (records: IndexRecords, bytes: Buffer, i: number): Rec =>
  records.fresh[i] ? { buf: records.fresh[i]!, at: 0 } : { buf: bytes, at: records.starts[i] };

const stageOf = (r: Rec) => (r.buf.readUInt16BE(r.at + 60) >> 12) & 3;
const nameOf = (r: Rec) => r.buf.subarray(recordNameAt(r.buf, r.at), recordNameEnd(r.buf, r.at));

/**
 * The entries of a split index (`split`, the records of `splitBytes`) merged with its shared
 * index's, as git's merge_base_index does: replacements take their shared entry's path,
 * deletions go, the other entries are added (one of the same path and stage replaces it; a
 * stage-0 one replaces every stage of its path). Records of `sharedBytes` stay spans of it;
 * the others are fresh.
 */
export function mergeSplit(
  split: IndexRecords,
  splitBytes: Buffer,
  shared: IndexRecords,
  sharedBytes: Buffer,
  link: SplitLink,
): Pick<IndexRecords, 'starts' | 'ends' | 'fresh'> {
  const splitCount = split.starts.length;
  if (link.replaced.length > splitCount) corrupt(`${link.replaced.length} replacements for ${splitCount} entries`);
  const base: (Rec | undefined)[] = shared.starts.map((_, i) => (link.deleted.has(i) ? undefined : recordOf(shared, sharedBytes, i)));
  link.replaced.forEach((pos, k) => {
    const replacing = recordOf(split, splitBytes, k);
    if (nameOf(replacing).length !== 0) corrupt(`replacement ${k} has a path`);
    const target = base[pos];
    if (!target) corrupt(`entry ${pos} is both deleted and replaced`);
    const path = nameOf(target).toString('utf8');
    const fresh = encodeEntry({ ...decodeRecord(replacing.buf, replacing.at), path });
    base[pos] = { buf: fresh, at: 0 };
  });
  const kept = base.filter((r): r is Rec => r !== undefined);
  const added: Rec[] = [];
  for (let k = link.replaced.length; k < splitCount; k++) {
    const r = recordOf(split, splitBytes, k);
    if (nameOf(r).length === 0) corrupt(`entry ${k} has no path`);
    added.push(r);
  }
  const merged: Rec[] = [];
  let i = 0;
  for (const add of added) {
    const name = nameOf(add);
    const stage = stageOf(add);
    for (; i < kept.length; i++) {
      const order = nameOf(kept[i]).compare(name);
      if (order > 0) break;
      if (order === 0) {
        // The same path: the same stage is replaced, and a stage-0 entry replaces every stage.
        const other = stageOf(kept[i]);
        if (other > stage && stage !== 0) break;
        if (other === stage || stage === 0) continue;
      }
      merged.push(kept[i]);
    }
    merged.push(add);
  }
  merged.push(...kept.slice(i));
  const fresh = merged.map((r) => (r.buf === sharedBytes ? undefined : r.at === 0 ? r.buf : spanOf(r)));
  const starts = merged.map((r, k) => (fresh[k] ? -1 : r.at));
  const ends = merged.map((r, k) => (fresh[k] ? -1 : recordEnd(r)));
  return { starts, ends, fresh };
}

/** Where the record at `r` ends: its path, a NUL and padding to a multiple of 8 from its start. */
function recordEnd(r: Rec): number {
  return r.at + ((recordNameEnd(r.buf, r.at) - r.at + 8) & ~7);
}

/** A record of the split file as a buffer that begins with it (no copy). */
function spanOf(r: Rec): Buffer {
  return r.buf.subarray(r.at, recordEnd(r));
}
