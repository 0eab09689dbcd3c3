import { createHash } from 'node:crypto';

/** Git's cached stat data of a working file; every field a uint32, as git keeps them. */
export interface IndexStat {
  ctimeSec: number;
  ctimeNsec: number;
  mtimeSec: number;
  mtimeNsec: number;
  dev: number;
  ino: number;
  uid: number;
  gid: number;
  size: number;
}

export interface IndexEntry {
  path: string;
  oid: string;
  mode: number;
  /** 0 normally; 1–3 for the base, ours and theirs of a conflicted path. */
  stage: number;
  flags: { assumeValid: boolean; skipWorktree: boolean; intentToAdd: boolean };
  stat: IndexStat;
}

export interface ParsedIndex {
  version: number;
  /** In git's order; optional extensions (TREE, REUC, UNTR, …) are dropped: caches that a change would make stale. */
  entries: IndexEntry[];
  /** Each entry's bytes as versions 2 and 3 lay them out (the file's own, when it is one of those): reused instead of re-encoded. */
  records: Buffer[];
}

/**
 * Why an index cannot be used: `missing` (no file), `corrupt` (bad bytes or checksum),
 * `unsupported` (a feature we do not write: split or sparse index, non-UTF-8 names).
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

export const ZERO_STAT: IndexStat = Object.freeze({
  ctimeSec: 0,
  ctimeNsec: 0,
  mtimeSec: 0,
  mtimeNsec: 0,
  dev: 0,
  ino: 0,
  uid: 0,
  gid: 0,
  size: 0,
});

const HEADER = 12;
export const INDEX_HEADER_SIZE = HEADER;
export const INDEX_HASH_SIZE = 20;
const FIXED = 62; // stat data (40) + oid (20) + flags (2); 64 with the extended flags
const HASH = INDEX_HASH_SIZE;

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

function decodePath(bytes: Buffer): string {
  const path = bytes.toString('utf8');
  if (path.includes('\ufffd') && !Buffer.from(path).equals(bytes)) {
    throw new IndexFileError('unsupported', '.git/index holds a path that is not UTF-8');
  }
  return path;
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

/** Reads index versions 2, 3 and 4 (gitformat-index), checking the trailing SHA-1 unless git wrote zeros (index.skipHash). */
export function parseIndex(buf: Buffer): ParsedIndex {
  if (buf.length < HEADER + HASH || buf.toString('latin1', 0, 4) !== 'DIRC') corrupt('no DIRC header');
  const body = buf.subarray(0, buf.length - HASH);
  const trailer = buf.subarray(buf.length - HASH);
  if (trailer.some((b) => b !== 0) && !createHash('sha1').update(body).digest().equals(trailer)) corrupt('checksum mismatch');
  const version = buf.readUInt32BE(4);
  if (version < 2 || version > 4) throw new IndexFileError('unsupported', `.git/index is version ${version}; only 2, 3 and 4 are read`);
  const count = buf.readUInt32BE(8);
  if (count > (body.length - HEADER) / FIXED) corrupt(`${count} entries cannot fit`);
  const entries: IndexEntry[] = new Array(count);
  const records: Buffer[] = new Array(count);
  let at = HEADER;
  let previous: Buffer = Buffer.alloc(0);
  for (let i = 0; i < count; i++) {
    if (at + FIXED > body.length) corrupt('truncated entry');
    const flags = buf.readUInt16BE(at + 60);
    const extended = (flags & 0x4000) !== 0;
    if (extended && version < 3) corrupt('extended flags in a version 2 index');
    const extra = extended ? buf.readUInt16BE(at + 62) : 0;
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
      const length = flags & 0xfff;
      const nul = length < 0xfff ? nameAt + length : body.indexOf(0, nameAt);
      if (nul < 0 || nul >= body.length || body[nul] !== 0) corrupt('unterminated path');
      name = body.subarray(nameAt, nul);
      end = at + ((nameAt - at + name.length + 8) & ~7);
    }
    if (end > body.length) corrupt('truncated entry');
    entries[i] = {
      path: decodePath(name),
      oid: buf.toString('hex', at + 40, at + 60),
      mode: buf.readUInt32BE(at + 24),
      stage: (flags >> 12) & 3,
      flags: { assumeValid: (flags & 0x8000) !== 0, skipWorktree: (extra & 0x4000) !== 0, intentToAdd: (extra & 0x2000) !== 0 },
      stat: {
        ctimeSec: buf.readUInt32BE(at),
        ctimeNsec: buf.readUInt32BE(at + 4),
        mtimeSec: buf.readUInt32BE(at + 8),
        mtimeNsec: buf.readUInt32BE(at + 12),
        dev: buf.readUInt32BE(at + 16),
        ino: buf.readUInt32BE(at + 20),
        uid: buf.readUInt32BE(at + 28),
        gid: buf.readUInt32BE(at + 32),
        size: buf.readUInt32BE(at + 36),
      },
    };
    // A record is reused as is unless its layout differs from ours (v4; an extended bit with no flag we know).
    records[i] = version === 4 || extended !== isExtended(entries[i]) ? encodeEntry(entries[i]) : body.subarray(at, end);
    at = end;
  }
  while (at < body.length) {
    if (at + 8 > body.length) corrupt('truncated extension');
    const signature = body.toString('latin1', at, at + 4);
    const size = body.readUInt32BE(at + 4);
    if (at + 8 + size > body.length) corrupt(`truncated ${signature} extension`);
    // Uppercase first letter: an optional cache git rebuilds at will; anything else must be understood.
    if (!(body[at] >= 0x41 && body[at] <= 0x5a)) {
      throw new IndexFileError(
        'unsupported',
        `.git/index uses the "${signature}" extension (split or sparse index), which Quire does not write`,
      );
    }
    at += 8 + size;
  }
  return { version, entries, records };
}

function isExtended(e: IndexEntry): boolean {
  return e.flags.skipWorktree || e.flags.intentToAdd;
}

/** One entry's bytes in versions 2 and 3: stat data, mode, oid, flags, the path and 1–8 NULs to a multiple of 8. */
export function encodeEntry(e: IndexEntry): Buffer {
  const name = Buffer.from(e.path);
  const extended = isExtended(e);
  const nameAt = FIXED + (extended ? 2 : 0);
  const out = Buffer.alloc((nameAt + name.length + 8) & ~7); // zeroed: the NUL and the padding
  const s = e.stat;
  out.writeUInt32BE(s.ctimeSec, 0);
  out.writeUInt32BE(s.ctimeNsec, 4);
  out.writeUInt32BE(s.mtimeSec, 8);
  out.writeUInt32BE(s.mtimeNsec, 12);
  out.writeUInt32BE(s.dev, 16);
  out.writeUInt32BE(s.ino, 20);
  out.writeUInt32BE(e.mode, 24);
  out.writeUInt32BE(s.uid, 28);
  out.writeUInt32BE(s.gid, 32);
  out.writeUInt32BE(s.size, 36);
  out.write(e.oid, 40, 20, 'hex');
  out.writeUInt16BE((e.flags.assumeValid ? 0x8000 : 0) | (extended ? 0x4000 : 0) | (e.stage << 12) | Math.min(name.length, 0xfff), 60);
  if (extended) out.writeUInt16BE((e.flags.skipWorktree ? 0x4000 : 0) | (e.flags.intentToAdd ? 0x2000 : 0), 62);
  name.copy(out, nameAt);
  return out;
}

/** Fills in the header and the SHA-1 trailer of an index whose records already sit in `out` between the two. */
export function frameIndex(out: Buffer, count: number, extended: boolean): void {
  out.write('DIRC', 0, 'latin1');
  out.writeUInt32BE(extended ? 3 : 2, 4);
  out.writeUInt32BE(count, 8);
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
