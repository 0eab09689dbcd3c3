import { createReadStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { hashBlob } from '../../vault-store/git/hash-blob.js';
import { mergeText } from '../../vault-store/diff/three-way-merge.js';
import { asText, conflictCopyPath } from './conflict-copy.js';
import type { UploadBody } from './big-files.js';
import type { Action } from './plan.js';
import type { Fetched } from './remote.js';
import type { Steps } from './steps.js';

/**
 * A file both sides changed since they last agreed. A page whose last synced text is kept
 * is merged three ways; the merge goes to the server first and then into the folder, so a
 * crash in between leaves the local edit in place for the next pass to merge again.
 * Otherwise (overlapping edits, a binary file, no base) the server's version takes the path
 * and the local one is kept beside it as a conflict copy, written before the path is
 * replaced and then sent like any new file. No edit is dropped on either side.
 */
export async function resolveBoth(step: Steps, action: Extract<Action, { kind: 'resolve' }>): Promise<void> {
  const { ctx, local, result } = step;
  const { path } = action;
  const mine = step.readLocal(path);
  if (!mine) return;
  const theirs = (await ctx.remote.read([path], step.spill)).get(path);
  if (!theirs) {
    // Deleted on the server since the change log said otherwise: the edit wins.
    if (await step.send(path, mine, null)) result.uploaded++;
    return;
  }
  if (theirs.hash !== ctx.state.remote.get(path)) ctx.state.set('remote', path, theirs.hash);
  // Files over BIG_FILE_BYTES come as a file on disk, and are never merged.
  const merged = mine instanceof Uint8Array && 'bytes' in theirs ? mergeBytes(step, path, action.base, mine, theirs.bytes) : undefined;
  if (merged !== undefined) {
    const hash = hashBlob(merged);
    if (hash === theirs.hash) {
      if (await step.writeLocal(path, theirs, local.get(path) ?? null)) result.downloaded++;
    } else if (hash === local.get(path)?.hash) {
      if (await step.send(path, mine, theirs.hash)) result.uploaded++;
    } else if (await step.send(path, merged, theirs.hash, false)) {
      const written = ctx.state.remote.get(path)!;
      if (await step.writeLocal(path, { hash: written, bytes: merged }, local.get(path) ?? null)) result.merged++;
    }
    return;
  }
  await conflictCopy(step, path, mine, theirs);
}

async function conflictCopy(step: Steps, path: string, mine: UploadBody, theirs: Fetched): Promise<void> {
  const { ctx, local, result } = step;
  const { state } = ctx;
  const hash = mine instanceof Uint8Array ? hashBlob(mine) : mine.hash;
  const copy = conflictCopyPath(path, hash, ctx.identity.device, ctx.now(), local, (p) => state.remote.has(p) || state.base.has(p));
  if (local.get(copy)?.hash !== hash) {
    let written: Awaited<ReturnType<typeof step.files.write>> = 'busy';
    if (mine instanceof Uint8Array) written = await step.files.write(copy, mine, null);
    else {
      // A big file is copied as a stream, checked against the hash the scan saw.
      const copied = await step.files.spill(copy, mine.size, createReadStream(mine.file, { end: mine.size - 1 }));
      if (copied.hash === hash) written = await step.files.write(copy, copied, null);
      else await rm(copied.tmp, { force: true });
    }
    if (written === 'busy') {
      result.pending++;
      return;
    }
    local.set(copy, { ...written, hash });
    await step.files.settle();
  }
  if (!(await step.writeLocal(path, theirs, local.get(path) ?? null))) return;
  result.conflicts.push([path, copy]);
  ctx.report.line(`conflict: ${path} changed here and on the server; the server's version is at the path, yours is in ${copy}`);
  const sent: UploadBody = mine instanceof Uint8Array ? mine : { ...mine, file: join(ctx.dir, copy) };
  if (state.remote.get(copy) !== hash && (await step.send(copy, sent, null))) result.uploaded++;
}

/** The three-way merge of a page's texts, as bytes; undefined when it does not merge cleanly or cannot be tried. */
function mergeBytes(step: Steps, path: string, base: string | undefined, mine: Uint8Array, theirs: Uint8Array): Uint8Array | undefined {
  if (!path.endsWith('.md') || base === undefined) return undefined;
  const original = step.bases.get(base);
  if (!original) return undefined;
  const [o, a, b] = [original, mine, theirs].map(asText);
  if (o === undefined || a === undefined || b === undefined) return undefined;
  // The vault's own merge (the one the server uses for base_hash writes), so both agree on what merges.
  const merged = mergeText(o, a, b);
  return merged.clean ? Buffer.from(merged.text, 'utf8') : undefined;
}
