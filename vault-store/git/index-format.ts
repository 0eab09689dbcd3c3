import { isUtf8 } from 'node:buffer';
import { createHash } from 'node:crypto';
import { encodeEntry, entryAt, isExtended, nameEnd, RECORD_FIXED, type IndexEntry } from './index-record.js';

/**
 * Where each entry's record of an index file lies, in git's order, without decoding the
 * entries (an object per entry was 59 MB of heap at 100k entries): a span of the file
 * (versions 2 and 3), or a record re-encoded where the file's layout is not ours (version 4's
 * prefix-compressed names; an extended flag we do not know). Optional extensions (TREE, REUC,
 * UNTR, …) are dropped: caches that a change would make stale.
 */
export interface IndexRecords {
  version: number;
  /** Entry i's record is file[starts[i], ends[i]), or fresh[i] where starts[i] is -1. */
  starts: number[];
  ends: number[];
  fresh: (Buffer | undefined)[];
  /** The `link` extension's payload when this is a split index (see index-split.ts). */
  link?: Buffer;
}

/**
 * Why an index cannot be used: `missing` (no file), `corrupt` (bad bytes or checksum),
 * `unsupported` (a feature we do not read: a sparse index, non-UTF-8 names).
 * The caller rebuilds on the first two and leaves the index alone on the third.
 */
export class IndexFileError extends Error {
  constructor(
    readonly reason: 'missing' | 'corrupt' | 'unsupported',
    message: string,
  ) {
    super(message);
    this.name = 'IndexFileError';
  }
}

const HEADER = 12;
export const INDEX_HEADER_SIZE = HEADER;
export const INDEX_HASH_SIZE = 20;
const FIXED = RECORD_FIXED;
const HASH = INDEX_HASH_SIZE;
/** The extended flags we know (skip-worktree, intent-to-add); a record with only others is re-encoded without them. */
const KNOWN_EXTENDED = 0x6000;

/**
 * Git's order: paths as UTF-8 bytes (memcmp), which is code point order. JS compares UTF-16
 * units, which would put U+E000–U+FFFF after astral characters; moving surrogates up fixes that.
 */
export function comparePaths(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    let x = a.charCodeAt(i);
    let y = b.charCodeAt(i);
    if (x === y) continue;
    if (x >= 0xd800) x += x < 0xe000 ? 0x2000 : -0x800;
    if (y >= 0xd800) y += y < 0xe000 ? 0x2000 : -0x800;
    return x - y;
  }
  return a.length - b.length;
}

export function compareEntries(a: IndexEntry, b: IndexEntry): number {
  return comparePaths(a.path, b.path) || a.stage - b.stage;
}

function corrupt(message: string): never {
  throw new IndexFileError('corrupt', `.git/index is corrupt: ${message}`);
}

/** Git's offset varint of index v4 (each continuation adds one, so encodings are unique). */
function readVarint(buf: Buffer, at: number): [number, number] {
  if (at >= buf.length) corrupt('truncated path prefix');
  let c = buf[at++];
  let value = c & 0x7f;
  while (c & 0x80) {
    if (at >= buf.length || value > 0xffffff) corrupt('bad path prefix');
    c = buf[at++];
    value = (value + 1) * 128 + (c & 0x7f);
  }
  return [value, at];
}

/**
 * Scans index versions 2, 3 and 4 (gitformat-index), checking the trailing SHA-1 unless git
 * wrote zeros (index.skipHash), and that every path is UTF-8, without making a string.
 */
export function scanIndex(buf: Buffer): IndexRecords {
  if (buf.length < HEADER + HASH || buf.toString('latin1', 0, 4) !== 'DIRC') corrupt('no DIRC header');
  const body = buf.subarray(0, buf.length - HASH);
  const trailer = buf.subarray(buf.length - HASH);
  if (trailer.some((b) => b !== 0) && !createHash('sha1').update(body).digest().equals(trailer)) corrupt('checksum mismatch');
  const version = buf.readUInt32BE(4);
  if (version < 2 || version > 4) throw new IndexFileError('unsupported', `.git/index is version ${version}; only 2, 3 and 4 are read`);
  const count = buf.readUInt32BE(8);
  if (count > (body.length - HEADER) / FIXED) corrupt(`${count} entries cannot fit`);
  const starts: number[] = new Array(count);
  const ends: number[] = new Array(count);
  const fresh: (Buffer | undefined)[] = new Array(count).fill(undefined);
  let at = HEADER;
  let previous: Buffer = Buffer.alloc(0);
  for (let i = 0; i < count; i++) {
    if (at + FIXED + 2 > body.length) corrupt('truncated entry');
    const flags = body.readUInt16BE(at + 60);
    const extended = (flags & 0x4000) !== 0;
    if (extended && version < 3) corrupt('extended flags in a version 2 index');
    const nameAt = at + FIXED + (extended ? 2 : 0);
    let name: Buffer;
    let end: number;
    if (version === 4) {
      const [strip, suffixAt] = readVarint(body, nameAt);
      if (strip > previous.length) corrupt('path prefix longer than the previous path');
      const nul = body.indexOf(0, suffixAt);
      if (nul < 0) corrupt('unterminated path');
      name = Buffer.concat([previous.subarray(0, previous.length - strip), body.subarray(suffixAt, nul)]);
      previous = name;
      end = nul + 1;
    } else {
      const nul = nameEnd(body, nameAt, flags);
      if (nul < 0 || nul >= body.length || body[nul] !== 0) corrupt('unterminated path');
      name = body.subarray(nameAt, nul);
      end = at + ((nul - at + 8) & ~7);
    }
    if (end > body.length) corrupt('truncated entry');
    if (!isUtf8(name)) throw new IndexFileError('unsupported', '.git/index holds a path that is not UTF-8');
    // A record is reused as is unless its layout differs from ours (v4; an extended bit with no flag we know).
    if (version === 4 || (extended && (body.readUInt16BE(at + 62) & KNOWN_EXTENDED) === 0)) {
      fresh[i] = encodeEntry(entryAt(body, at, name.toString('utf8')));
      starts[i] = ends[i] = -1;
    } else {
      starts[i] = at;
      ends[i] = end;
    }
    at = end;
  }
  let link: Buffer | undefined;
  while (at < body.length) {
    if (at + 8 > body.length) corrupt('truncated extension');
    const signature = body.toString('latin1', at, at + 4);
    const size = body.readUInt32BE(at + 4);
    if (at + 8 + size > body.length) corrupt(`truncated ${signature} extension`);
    if (signature === 'link') link = body.subarray(at + 8, at + 8 + size);
    // Uppercase first letter: an optional cache git rebuilds at will; anything else must be understood.
    else if (!(body[at] >= 0x41 && body[at] <= 0x5a)) {
      throw new IndexFileError('unsupported', `.git/index uses the "${signature}" extension (a sparse index), which Quire does not read`);
    }
    at += 8 + size;
  }
  return { version, starts, ends, fresh, link };
}
/** Writes an index's header: version 2, or 3 when an entry has extended flags. */
export function writeIndexHeader(out: Buffer, count: number, extended: boolean): void {
  out.write('DIRC', 0, 'latin1');
  out.writeUInt32BE(extended ? 3 : 2, 4);
  out.writeUInt32BE(count, 8);
}

/** Fills in the header and the SHA-1 trailer of an index whose records already sit in `out` between the two. */
export function frameIndex(out: Buffer, count: number, extended: boolean): void {
  writeIndexHeader(out, count, extended);
  const end = out.length - HASH;
  createHash('sha1').update(out.subarray(0, end)).digest().copy(out, end);
}

/** Writes version 2 (3 when an entry needs extended flags) in git's order, with no extensions and a SHA-1 trailer. */
export function serializeIndex(entries: readonly IndexEntry[]): Buffer {
  let sorted = entries;
  for (let i = 1; i < entries.length; i++) {
    if (compareEntries(entries[i - 1], entries[i]) >= 0) {
      sorted = [...entries].sort(compareEntries);
      break;
    }
  }
  for (let i = 1; i < sorted.length; i++) {
    if (compareEntries(sorted[i - 1], sorted[i]) === 0)
      throw new Error(`index entry ${sorted[i].path} (stage ${sorted[i].stage}) appears twice`);
  }
  const records = sorted.map(encodeEntry);
  const out = Buffer.allocUnsafe(HEADER + records.reduce((sum, r) => sum + r.length, 0) + HASH);
  let at = HEADER;
  for (const r of records) at += r.copy(out, at);
  frameIndex(out, records.length, sorted.some(isExtended));
  return out;
}
