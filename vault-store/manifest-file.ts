import { promises as fsp, readFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { crc32 } from 'node:zlib';
import { atomicWriteFile } from './atomic-file.js';
import { Manifest, type ManifestFile } from './manifest.js';

/** Bumped whenever the file changes shape; a file of another version is ignored (the tree is walked). */
const VERSION = 1;
const MAGIC = 'quire-tree-files';
const OID_CHARS = 40;

/**
 * The manifest of one tree, saved so that the next open at that tree neither walks it nor
 * checks every path again (at 100k pages the walk and the checks were 0.6–0.9 s of a warm
 * start). A tree id names its files exactly, so a file saved for the head's tree is the
 * manifest; any other tree, a bad checksum or a missing file means the walk.
 *
 * One header line `quire-tree-files <version> <tree> <files> <links> <crc32>`, then the blob
 * ids (hex, one after another), a `0`/`1` per file (1: hidden, no file of the API), and the
 * paths of the files and then of the links, separated by NUL (a git path holds none).
 */
export async function readManifestFile(file: string, tree: string): Promise<Manifest | undefined> {
  // Read synchronously (8 MB at 100k files): a vault reopened on a busy server waited for
  // the request running at each of an asynchronous read's four round trips.
  let bytes: Buffer;
  try {
    bytes = readFileSync(file);
  } catch {
    return undefined;
  }
  const newline = bytes.indexOf(0x0a);
  const header = /^(\S+) (\d+) ([0-9a-f]{40}) (\d+) (\d+) (\d+)$/.exec(bytes.toString('latin1', 0, Math.max(newline, 0)));
  if (!header || header[1] !== MAGIC || Number(header[2]) !== VERSION || header[3] !== tree) return undefined;
  const [files, links, crc] = [Number(header[4]), Number(header[5]), Number(header[6])];
  const body = bytes.subarray(newline + 1);
  const pathsAt = files * (OID_CHARS + 1);
  if (crc32(body) !== crc || body.byteLength < pathsAt) return undefined;
  // One decode per kind, cut into pieces (the pieces share it: it holds no more than they do).
  const oids = body.toString('latin1', 0, files * OID_CHARS);
  const hidden = body.toString('latin1', files * OID_CHARS, pathsAt);
  const paths = files + links === 0 ? [] : body.toString('utf8', pathsAt).split('\0');
  if (paths.length !== files + links) return undefined;
  const entries = function* (): Generator<ManifestFile> {
    for (let i = 0; i < files; i++)
      yield { path: paths[i], oid: oids.slice(i * OID_CHARS, (i + 1) * OID_CHARS), hidden: hidden[i] === '1' };
  };
  return Manifest.of({ files: entries, size: files }, paths.slice(files));
}

/** The file's bytes for `manifest` at `tree`, taken now (the caller holds the manifest still). */
export function manifestFileBytes(manifest: Manifest, tree: string): Uint8Array {
  const oids: string[] = [];
  const hidden: string[] = [];
  const paths: string[] = [];
  for (const [path, { oid }] of manifest.entries()) {
    oids.push(oid);
    hidden.push(manifest.isHidden(path) ? '1' : '0');
    paths.push(path);
  }
  const files = paths.length;
  for (const link of manifest.symlinks()) paths.push(link);
  const body = Buffer.concat([Buffer.from(oids.join(''), 'latin1'), Buffer.from(hidden.join(''), 'latin1'), Buffer.from(paths.join('\0'))]);
  const header = `${MAGIC} ${VERSION} ${tree} ${files} ${paths.length - files} ${crc32(body)}\n`;
  return Buffer.concat([Buffer.from(header, 'latin1'), body]);
}

/** Replaces the saved manifest atomically: a reader sees the old file or the new one, never a torn one. */
export async function writeManifestFile(file: string, bytes: Uint8Array): Promise<void> {
  await fsp.mkdir(dirname(file), { recursive: true });
  await atomicWriteFile(file, bytes);
}
