import type { TreeEntry } from 'isomorphic-git';
import { existsSync, promises as fsp, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { inflateSync } from 'node:zlib';
import { QuireError } from '../errors.js';
import { inflateObject } from './inflate.js';
import type { ByteRange } from './inflate-stream.js';
import { looseBlobStream, looseHeader } from './loose-blob.js';
import { PackFile, type ObjectHeader, type PackedObject } from './pack-file.js';
import { parseTree } from './tree-parse.js';

const AUTHOR = /^(.*) <(.*)> (\d+) [+-]\d{4}$/;
/** Blobs this process wrote that `blob` answers from memory: a few batches' pages, not attachments. */
const RECENT_BYTES = 4 << 20;
const RECENT_BLOB_MAX = 256 << 10;

export interface Signature {
  name: string;
  email: string;
}

export interface CommitInfo {
  oid: string;
  tree: string;
  parents: string[];
  message: string;
  author: Signature & { timestamp: number };
}

/**
 * The one object reader: loose files and packfiles, with node's own zlib. isomorphic-git
 * inflates with pako and hashes every object it reads; on the change feed and the export,
 * which read thousands of objects per request, that was most of the time (4 s for the
 * blobs of the 10k vault). Like git, this trusts the object store and does not re-hash on
 * read. An object found nowhere, or of another type than asked, means a damaged store (ids
 * come from git itself; callers check ids they were given): a plain error, so INTERNAL.
 */
export class ObjectReader {
  private readonly objects: string;
  private packs: Promise<PackFile[]> | undefined;
  /** Blobs just written, oldest first (see `remember`). */
  private readonly recent = new Map<string, Buffer>();
  private recentBytes = 0;

  constructor(
    gitdir: string,
    /** Objects written and not yet in a pack this reader knows (see PendingObjects). */
    private readonly pending?: { get(oid: string): PackedObject | undefined },
  ) {
    this.objects = join(gitdir, 'objects');
  }

  /** True when a pack this reader knows holds `oid` (in memory: no file is touched). */
  async inPack(oid: string): Promise<boolean> {
    return (await this.locate(oid, false)) !== undefined;
  }

  /**
   * Packs this process wrote (`added`) or merged away (`removed`), by path without extension:
   * the list follows without re-reading the folder. A pack removed stays readable by whoever
   * holds it (its descriptor is open) until it is collected.
   */
  async packsChanged(added: string, removed: readonly string[] = []): Promise<void> {
    if (!this.packs) return; // read with everything in place when first needed
    const gone = new Set([...removed, added]);
    const previous = this.packs;
    // Chained, so changes told at once (a batch's pack, a merge) all stay in the list.
    this.packs = (async () => {
      const opened = await PackFile.open(added).catch(() => undefined);
      if (!opened) return this.openPacks(); // looked for in the folder again
      return [...(await previous).filter((p) => !gone.has(p.path)), opened];
    })();
    await this.packs;
  }

  /** Blobs can be large: big ones are inflated off the event loop. */
  async blob(oid: string): Promise<Uint8Array> {
    return this.recent.get(oid) ?? this.read(oid, 'blob');
  }

  /**
   * Keeps a page-sized blob the write path just stored, by id (immutable, so never stale):
   * the index follows each commit by reading its pages back, and as a loose-file read each
   * was four thread-pool round trips queued behind the batch's fsyncs. Bounded by bytes, the
   * oldest out first.
   */
  remember(oid: string, bytes: Uint8Array): void {
    if (bytes.byteLength > RECENT_BLOB_MAX || this.recent.has(oid)) return;
    this.recent.set(oid, Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength));
    this.recentBytes += bytes.byteLength;
    for (const [old, held] of this.recent) {
      if (this.recentBytes <= RECENT_BYTES) break;
      this.recent.delete(old);
      this.recentBytes -= held.byteLength;
    }
  }

  /** A blob's size from its object's header alone, loose or packed (packs come from pushes and `git gc`). */
  async blobSize(oid: string): Promise<number> {
    checkOid(oid);
    const header = await this.header(oid);
    if (header.type !== 'blob') throw new Error(`Object ${oid} is a ${header.type}, not a blob`);
    return header.size;
  }

  /**
   * A blob's bytes (or `range` of them) as a stream, inflated as they are sent, never held
   * whole; except a deltified packed blob, rebuilt whole from its base (see PackFile.stream).
   */
  async blobStream(oid: string, range?: ByteRange): Promise<Readable> {
    checkOid(oid);
    if (this.pending?.get(oid)) {
      const data = await this.blob(oid);
      return Readable.from([range ? data.subarray(range.start, range.end + 1) : data]);
    }
    const path = this.pathOf(oid);
    if (existsSync(path)) return looseBlobStream(path, range);
    const { pack, offset } = await this.locate(oid, true);
    const streamed = await pack.stream(offset, range);
    if (streamed) {
      if (streamed.type !== 'blob') throw new Error(`Object ${oid} is a ${streamed.type}, not a blob`);
      return streamed.content;
    }
    const data = await this.blob(oid);
    return Readable.from([range ? data.subarray(range.start, range.end + 1) : data]);
  }

  async tree(oid: string): Promise<TreeEntry[]> {
    return parseTree(await this.read(oid, 'tree'));
  }

  /** A tree's raw bytes, unparsed: what the history build compares entry by entry (see raw-tree-diff). */
  async rawTree(oid: string): Promise<Buffer> {
    return this.read(oid, 'tree');
  }

  /**
   * Commits are small and read one after another (each names the next): the pack index is
   * asked first (in memory, and a history build reads thousands of packed commits, each of
   * which used to fail a loose-file open first), then a blocking read of the loose file,
   * far cheaper than four thread-pool round trips per object.
   */
  async commit(oid: string): Promise<CommitInfo> {
    checkOid(oid);
    const packed = this.pending?.get(oid) ?? (await this.packed(oid));
    if (packed) return parseCommit(oid, ofType(oid, 'commit', packed));
    let deflated: Buffer | undefined;
    try {
      deflated = readFileSync(this.pathOf(oid));
    } catch {
      return parseCommit(oid, ofType(oid, 'commit', await this.fromPacks(oid)));
    }
    return parseCommit(oid, ofType(oid, 'commit', unwrap(inflateSync(deflated))));
  }

  /** Empties the packs' delta-base caches: up to 16 MB each, which a history build fills with old trees. */
  async releaseCaches(): Promise<void> {
    for (const pack of (await this.packs) ?? []) pack.releaseBases();
  }

  private async read(oid: string, type: string): Promise<Buffer> {
    checkOid(oid);
    return ofType(oid, type, await this.anyObject(oid));
  }

  /** Any object by id, loose or packed; also how a REF_DELTA finds its base. */
  private async anyObject(oid: string): Promise<PackedObject> {
    // The pack index is in memory, so asking it first costs nothing; a failed open does.
    const packed = this.pending?.get(oid) ?? (await this.packed(oid));
    if (packed) return packed;
    const deflated = await fsp.readFile(this.pathOf(oid)).catch(() => undefined);
    return deflated ? unwrap(await inflateObject(deflated)) : this.fromPacks(oid);
  }

  /** Any object's type and size, loose or packed, without inflating its content; also how a REF_DELTA's base type is found. */
  private async header(oid: string): Promise<ObjectHeader> {
    const held = this.pending?.get(oid);
    if (held) return { type: held.type, size: held.data.byteLength };
    const found = await this.locate(oid, false);
    if (found) return found.pack.header(found.offset, (base) => this.header(base));
    const loose = await looseHeader(this.pathOf(oid));
    if (loose) return loose;
    const { pack, offset } = await this.locate(oid, true);
    return pack.header(offset, (base) => this.header(base));
  }

  /**
   * The pack holding `oid` and where. Packs Quire writes and merges are told to the reader
   * (packsChanged), but `git gc` run by hand moves loose objects into a new pack: with
   * `reload`, an object in no pack known re-reads the pack list once before it is called
   * missing (an error).
   */
  private async locate(oid: string, reload: true): Promise<{ pack: PackFile; offset: number }>;
  private async locate(oid: string, reload: false): Promise<{ pack: PackFile; offset: number } | undefined>;
  private async locate(oid: string, reload: boolean): Promise<{ pack: PackFile; offset: number } | undefined> {
    this.packs ??= this.openPacks();
    const key = Buffer.from(oid, 'hex'); // once, not per pack: a batch's packs are up to 16
    for (const pack of await this.packs) {
      const offset = pack.find(key);
      if (offset !== undefined) return { pack, offset };
    }
    if (!reload) return undefined;
    this.packs = this.openPacks();
    const found = await this.locate(oid, false);
    if (!found) throw new Error(`Could not find object ${oid}`);
    return found;
  }

  private async packed(oid: string): Promise<PackedObject | undefined> {
    const found = await this.locate(oid, false);
    return found?.pack.read(found.offset, (base) => this.anyObject(base));
  }

  /** An object not found loose nor in the packs first read: `git gc` may have packed it since (see locate). */
  private async fromPacks(oid: string): Promise<PackedObject> {
    const { pack, offset } = await this.locate(oid, true);
    return pack.read(offset, (base) => this.anyObject(base));
  }

  private async openPacks(): Promise<PackFile[]> {
    const dir = join(this.objects, 'pack');
    // Synchronous, as PackFile.open reads each index: small, and read at every vault open.
    let names: string[] = [];
    try {
      names = readdirSync(dir);
    } catch {
      // No pack folder: loose objects only.
    }
    const packs = await Promise.all(names.filter((n) => n.endsWith('.idx')).map((n) => PackFile.open(join(dir, n.slice(0, -4)))));
    return packs.filter((p): p is PackFile => p !== undefined);
  }

  private pathOf(oid: string): string {
    return join(this.objects, oid.slice(0, 2), oid.slice(2));
  }
}

/** Ids become file paths here: anything but 40 hex digits is refused before touching disk. */
function checkOid(oid: string): void {
  if (!/^[0-9a-f]{40}$/.test(oid)) throw new QuireError('NOT_FOUND', `${JSON.stringify(oid)} is not an object id`, { oid });
}

function ofType(oid: string, type: string, object: PackedObject): Buffer {
  if (object.type !== type) throw new Error(`Object ${oid} is a ${object.type}, not a ${type}`);
  return object.data;
}

/** Splits a loose object's `type size\0` header from its content. */
function unwrap(wrapped: Buffer): PackedObject {
  return { type: wrapped.subarray(0, wrapped.indexOf(32)).toString(), data: wrapped.subarray(wrapped.indexOf(0) + 1) };
}

function parseCommit(oid: string, raw: Buffer): CommitInfo {
  const text = raw.toString('utf8');
  const split = text.indexOf('\n\n');
  const headers = (split < 0 ? text : text.slice(0, split)).split('\n');
  const info: CommitInfo = {
    oid,
    tree: '',
    parents: [],
    message: split < 0 ? '' : text.slice(split + 2),
    author: { name: '', email: '', timestamp: 0 },
  };
  for (const line of headers) {
    const space = line.indexOf(' ');
    const [key, value] = [line.slice(0, space), line.slice(space + 1)];
    if (key === 'tree') info.tree = value;
    else if (key === 'parent') info.parents.push(value);
    else if (key === 'author') {
      const m = AUTHOR.exec(value);
      if (m) info.author = { name: m[1], email: m[2], timestamp: Number(m[3]) };
    }
  }
  return info;
}
