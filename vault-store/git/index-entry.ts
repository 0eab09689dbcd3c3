import { promises as fsp, type BigIntStats, type Stats } from 'node:fs';
import { hashBlob } from './hash-blob.js';
import type { IndexEntry, IndexStat } from './index-format.js';

/** Index entries as git makes them from working files: stat data, and the checks on it (racy entries, changed files). */

const u32 = (n: number | bigint): number => (typeof n === 'bigint' ? Number(BigInt.asUintN(32, n)) : n >>> 0);
export const NO_FLAGS = Object.freeze({ assumeValid: false, skipWorktree: false, intentToAdd: false });

/** Seconds and nanoseconds of a file time, as the index keeps them (uint32 seconds). */
export function fileTime(ns: bigint | undefined, ms: number): [number, number] {
  if (ns !== undefined) return [u32(ns / 1_000_000_000n), Number(ns % 1_000_000_000n)];
  const sec = Math.floor(ms / 1000); // number stats carry ~µs precision only: pass BigIntStats for exact nanoseconds
  return [u32(sec), Math.min(999_999_999, Math.round((ms - sec * 1000) * 1e6))];
}

/**
 * A stage-0 entry for a working file, with git's stat data (uint32 fields, size mod 2^32).
 * `mode` is the tree's mode; without it the stat decides: symlink 120000, else 100755 when
 * the owner may execute and `fileMode` (core.filemode) is on, else 100644.
 */
export function entryFromStat(path: string, oid: string, mode: number | undefined, stat: Stats | BigIntStats, fileMode = true): IndexEntry {
  const big = 'ctimeNs' in stat;
  const [ctimeSec, ctimeNsec] = fileTime(big ? stat.ctimeNs : undefined, Number(stat.ctimeMs));
  const [mtimeSec, mtimeNsec] = fileTime(big ? stat.mtimeNs : undefined, Number(stat.mtimeMs));
  const executable = fileMode && (Number(stat.mode) & 0o100) !== 0;
  return {
    path,
    oid,
    mode: mode ?? (stat.isSymbolicLink() ? 0o120000 : executable ? 0o100755 : 0o100644),
    stage: 0,
    flags: NO_FLAGS,
    stat: {
      ctimeSec,
      ctimeNsec,
      mtimeSec,
      mtimeNsec,
      dev: u32(stat.dev),
      ino: u32(stat.ino),
      uid: u32(stat.uid),
      gid: u32(stat.gid),
      size: u32(stat.size),
    },
  };
}

/** Whether the working file `file` (stat `st`) holds blob `oid`: by size when the size is known, else by its bytes. */
export async function matchesBlob(file: string, st: BigIntStats, oid: string, size: number | undefined): Promise<boolean> {
  if (size !== undefined) return st.size === BigInt(size);
  const data = st.isSymbolicLink() ? await fsp.readlink(file, { encoding: 'buffer' }) : await fsp.readFile(file);
  return hashBlob(data) === oid;
}

/** The stat data git compares to tell a file changed. */
export function sameStat(a: IndexStat, b: IndexStat): boolean {
  return (
    a.mtimeSec === b.mtimeSec &&
    a.mtimeNsec === b.mtimeNsec &&
    a.ctimeSec === b.ctimeSec &&
    a.ctimeNsec === b.ctimeNsec &&
    a.ino === b.ino &&
    a.size === b.size
  );
}
