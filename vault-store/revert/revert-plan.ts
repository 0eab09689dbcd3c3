import { mergeText } from '../diff/three-way-merge.js';
import { unifiedDiff } from '../diff/unified-diff.js';
import { hashBlob } from '../git/hash-blob.js';
import type { ObjectReader } from '../git/object-reader.js';
import type { Run } from './session-changes.js';

/** Why a path is left as it is. */
export type SkipReason = 'conflict' | 'deleted_since' | 'exists_since' | 'outside_write_paths';

export interface RevertPlan {
  /** Pages changed back (three-way: later edits by others are kept). */
  reverted: { path: string; hash: string }[];
  /** Pages the session created, deleted again. */
  deleted: { path: string }[];
  /** Pages the session deleted, written back. */
  recreated: { path: string; hash: string }[];
  /** Pages left alone, with the session's change to them as a unified diff. */
  skipped: { path: string; reason: SkipReason; current_hash: string | null; diff: string }[];
}

/** A version of a file: its blob id (null: absent) and, once known, its bytes. */
interface Version {
  oid: string | null;
  bytes?: Uint8Array;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/**
 * Undoes one path's runs, newest first, each three-way: base = the file after the run, ours =
 * the file as it is (or as undoing the newer runs left it), theirs = the file before the run.
 * Returns the file to write, or the run that could not be undone and why.
 */
async function undoPath(
  objects: ObjectReader,
  current: string | null,
  runs: readonly Run[],
): Promise<{ result: Version } | { run: Run; reason: SkipReason }> {
  const bytes = async (v: Version) => (v.bytes ??= await objects.blob(v.oid!));
  let ours: Version = { oid: current };
  for (const run of [...runs].reverse()) {
    if (run.before === run.after) continue;
    if (ours.oid === run.after || ours.oid === run.before) {
      ours = { oid: run.before };
      continue;
    }
    if (ours.oid === null) return { run, reason: 'deleted_since' };
    if (run.after === null || run.before === null) return { run, reason: run.after === null ? 'exists_since' : 'conflict' };
    const [base, mine, theirs] = await Promise.all([{ oid: run.after }, ours, { oid: run.before }].map(bytes));
    const merged = mergeText(decoder.decode(base), decoder.decode(mine), decoder.decode(theirs));
    if (!merged.clean) return { run, reason: 'conflict' };
    const out = encoder.encode(merged.text);
    ours = { oid: hashBlob(out), bytes: out };
  }
  return { result: ours };
}

/**
 * The plan undoing `runs` (per path) against the files as they are now (`current`), and the
 * files to write for it. `writable` false: the path is listed as skipped, never written.
 */
export async function planRevert(
  objects: ObjectReader,
  runs: Map<string, Run[]>,
  current: (path: string) => string | null,
  writable: (path: string) => boolean,
): Promise<{ plan: RevertPlan; files: { path: string; content: Uint8Array | null }[] }> {
  const plan: RevertPlan = { reverted: [], deleted: [], recreated: [], skipped: [] };
  const files: { path: string; content: Uint8Array | null }[] = [];
  const text = async (oid: string | null) => (oid === null ? null : decoder.decode(await objects.blob(oid)));
  const skip = async (path: string, run: Run, reason: SkipReason) => {
    const diff = unifiedDiff(path, await text(run.before), await text(run.after));
    plan.skipped.push({ path, reason, current_hash: current(path), diff });
  };
  for (const path of [...runs.keys()].sort()) {
    const list = runs.get(path)!;
    if (!writable(path)) {
      await skip(path, { before: list[0].before, after: list[list.length - 1].after }, 'outside_write_paths');
      continue;
    }
    const now = current(path);
    const undone = await undoPath(objects, now, list);
    if (!('result' in undone)) {
      await skip(path, undone.run, undone.reason);
      continue;
    }
    const { oid } = undone.result;
    if (oid === now) continue;
    files.push({ path, content: oid === null ? null : (undone.result.bytes ?? (await objects.blob(oid))) });
    if (oid === null) plan.deleted.push({ path });
    else if (now === null) plan.recreated.push({ path, hash: oid });
    else plan.reverted.push({ path, hash: oid });
  }
  return { plan, files };
}
