import { once } from 'node:events';
import type { Writable } from 'node:stream';
import { QuireError } from '../errors.js';
import { SYMLINK_MODE } from '../git/tree-parse.js';
import type { TreeFile } from '../git/tree-store.js';
import type { Vault } from '../vault.js';
import { prepareEntry, type ZipEntry } from './zip-entry.js';
import { ZipWriter } from './zip-writer.js';

export interface ExportOptions {
  /** The commit to export; head when absent. Pass `vault.head` to know it before streaming. */
  commit?: string;
  visible?: (path: string) => boolean;
  /** Aborting stops the export: no further blobs are read. */
  signal?: AbortSignal;
}

export interface ExportResult {
  commit: string;
  files: number;
}

/** Blob reads in flight ahead of the writer: hides read latency, and bounds memory to this many entries. */
const WINDOW = 32;

/**
 * Streams a zip of every file of one commit's tree (pages and attachments) to `out`.
 * Symbolic links committed with git are left out: a link entry would make unzip create a
 * link pointing anywhere on the machine it is unpacked on.
 * Blobs come from that fixed tree, never the working folder, so writes landing meanwhile
 * cannot tear the archive. Memory is bounded by the read-ahead window plus the central
 * directory. Stops (rejecting with an AbortError) when `signal` aborts or `out` closes
 * early, e.g. the client went away; `out` is ended only after a complete archive, and the
 * promise resolves once it has flushed.
 */
export async function exportZip(vault: Vault, options: ExportOptions, out: Writable): Promise<ExportResult> {
  const commit = options.commit ?? vault.head;
  const objects = vault.repo.objects;
  const info = await objects.commit(commit).catch(() => {
    throw new QuireError('NOT_FOUND', `No commit ${commit} in this vault`, { commit });
  });
  const stop = new AbortController();
  const onClose = () => stop.abort(new DOMException('the client went away', 'AbortError'));
  out.once('close', onClose);
  const signal = options.signal ? AbortSignal.any([options.signal, stop.signal]) : stop.signal;
  try {
    const zip = new ZipWriter(out, new Date(info.author.timestamp * 1000));
    const ahead: Promise<ZipEntry>[] = [];
    let files = 0;
    const flushOne = async () => {
      if (!zip.write(await ahead.shift()!)) await once(out, 'drain', { signal });
      files += 1;
    };
    for (const file of await vault.repo.trees.files(info.tree)) {
      signal.throwIfAborted();
      if (!exported(file, options.visible)) continue;
      const entry = objects.blob(file.oid).then((raw) => prepareEntry(file.path, toBuffer(raw), parseInt(file.mode, 8)));
      // Awaited in order below; until then a failure must not count as unhandled.
      entry.catch(() => undefined);
      ahead.push(entry);
      if (ahead.length >= WINDOW) await flushOne();
    }
    while (ahead.length) await flushOne();
    signal.throwIfAborted();
    zip.finish();
    out.end();
    await once(out, 'finish', { signal });
    return { commit, files };
  } finally {
    out.off('close', onClose);
  }
}

function exported(file: TreeFile, visible?: (path: string) => boolean): boolean {
  if (file.mode === SYMLINK_MODE) return false;
  // A tree cannot hold `.git` by git's rules; a hand-made one must still never leak it.
  if (file.path.split('/').some((part) => part.toLowerCase() === '.git')) return false;
  return !visible || visible(file.path);
}

function toBuffer(bytes: Uint8Array): Buffer {
  return Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}
