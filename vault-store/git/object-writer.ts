import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { deflateSync, inflateSync } from 'node:zlib';
import type { TreeEntry } from 'isomorphic-git';
import { tempNameFor } from '../atomic-file.js';

export type ObjectType = 'blob' | 'tree' | 'commit';

function frame(type: ObjectType, body: Uint8Array): Buffer {
  return Buffer.concat([Buffer.from(`${type} ${body.byteLength}\0`), body]);
}

function isIntact(file: Buffer, oid: string): boolean {
  try {
    return createHash('sha1').update(inflateSync(file)).digest('hex') === oid;
  } catch {
    return false;
  }
}

function readIfPresent(path: string): Buffer | undefined {
  try {
    return readFileSync(path);
  } catch {
    return undefined;
  }
}

/**
 * Writes loose objects with node's zlib: isomorphic-git's writeTree/writeBlob spent ~3 ms
 * per object in its compression path, most of a write's latency. Each object is reported to
 * `written`, so the repo fsyncs it before the ref moves. An object already present is
 * checked, not trusted: a crash before that fsync can leave a torn file, which is rewritten
 * instead of being referenced. The file steps are synchronous (the fsync, batched, is not):
 * a write makes a handful of small objects, and as thread-pool round trips their dozen steps
 * queued behind other requests' reads on a loaded machine.
 */
export async function writeObject(gitdir: string, type: ObjectType, body: Uint8Array, written: (path: string) => void): Promise<string> {
  const raw = frame(type, body);
  const oid = createHash('sha1').update(raw).digest('hex');
  const dir = join(gitdir, 'objects', oid.slice(0, 2));
  const path = join(dir, oid.slice(2));
  const existing = readIfPresent(path);
  if (existing && isIntact(existing, oid)) return oid;
  mkdirSync(dir, { recursive: true });
  // Through a temp file renamed into place, as git does: a process killed between creating
  // and writing a file in place leaves an empty object, which git fsck reports as corrupt.
  const tmp = tempNameFor(path);
  writeFileSync(tmp, deflateSync(raw, { level: 1 }));
  renameSync(tmp, path);
  written(path);
  return oid;
}

/** Git's tree order: names compared bytewise, a folder as if its name ended in "/". */
function treeKey(entry: TreeEntry): string {
  return entry.type === 'tree' ? `${entry.path}/` : entry.path;
}

export function sortTree(entries: readonly TreeEntry[]): TreeEntry[] {
  return [...entries].sort((a, b) => Buffer.compare(Buffer.from(treeKey(a)), Buffer.from(treeKey(b))));
}

/** The body of a tree object; `entries` must be in git's order (`sortTree`). */
export function serializeTree(entries: readonly TreeEntry[]): Buffer {
  return Buffer.concat(entries.flatMap((e) => [Buffer.from(`${e.mode.replace(/^0+/, '')} ${e.path}\0`), Buffer.from(e.oid, 'hex')]));
}

export interface CommitFields {
  tree: string;
  parents: string[];
  message: string;
  author: { name: string; email: string };
  when: Date;
}

function signature(who: { name: string; email: string }, when: Date): string {
  const minutes = -when.getTimezoneOffset();
  const abs = Math.abs(minutes);
  const zone = `${minutes < 0 ? '-' : '+'}${String(Math.floor(abs / 60)).padStart(2, '0')}${String(abs % 60).padStart(2, '0')}`;
  // Angle brackets and newlines would break the header line git parses.
  const clean = (s: string) => s.replace(/[<>\n]/g, '');
  return `${clean(who.name)} <${clean(who.email)}> ${Math.floor(when.getTime() / 1000)} ${zone}`;
}

export function serializeCommit(c: CommitFields): Buffer {
  const sig = signature(c.author, c.when);
  const headers = [`tree ${c.tree}`, ...c.parents.map((p) => `parent ${p}`), `author ${sig}`, `committer ${sig}`];
  return Buffer.from(`${headers.join('\n')}\n\n${c.message}`);
}
