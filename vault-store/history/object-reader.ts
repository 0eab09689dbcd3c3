import git, { type TreeEntry } from 'isomorphic-git';
import { promises as fsp, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { inflateSync } from 'node:zlib';
import { QuireError } from '../errors.js';
import type { CommitInfo, GitRepo } from '../git/repo.js';
import { parseTree } from '../git/tree-parse.js';
import { inflateObject } from './inflate.js';
import { PackFile, type PackedObject } from './pack-file.js';

const AUTHOR = /^(.*) <(.*)> (\d+) [+-]\d{4}$/;

/**
 * Reads objects with node's own zlib: loose files first, then packfiles, then
 * isomorphic-git for anything else. isomorphic-git inflates with pako and hashes every
 * object it reads; on the change feed and the export, which read thousands of objects per
 * request, that was most of the time (4 s for the blobs of the 10k vault). Like git, this
 * trusts the object store and does not re-hash on read.
 */
export class ObjectReader {
  private readonly objects: string;
  private packs: Promise<PackFile[]> | undefined;

  constructor(private readonly repo: GitRepo) {
    this.objects = join(repo.gitdir, 'objects');
  }

  /** Blobs can be large: read and inflated off the event loop. */
  async blob(oid: string): Promise<Uint8Array> {
    return (await this.data(oid)) ?? this.repo.readBlob(oid);
  }

  async tree(oid: string): Promise<TreeEntry[]> {
    const data = await this.data(oid);
    if (data) return parseTree(data);
    return (await git.readTree({ fs: this.repo.fs, gitdir: this.repo.gitdir, oid, cache: this.repo.cache })).tree;
  }

  /** An object's content from a pack or a loose file; undefined when only isomorphic-git may know it. */
  private async data(oid: string): Promise<Buffer | undefined> {
    checkOid(oid);
    // The pack index is in memory, so asking it first costs nothing; a failed open does.
    const packed = await this.packed(oid);
    if (packed) return packed.data;
    const deflated = await fsp.readFile(this.pathOf(oid)).catch(() => undefined);
    if (deflated) return unwrap(await inflateObject(deflated));
    return (await this.repacked(oid))?.data;
  }

  /**
   * Commits are small and read one after another (each names the next), so a blocking
   * read is far cheaper than four thread-pool round trips per object.
   */
  async commit(oid: string): Promise<CommitInfo> {
    checkOid(oid);
    let deflated: Buffer | undefined;
    try {
      deflated = readFileSync(this.pathOf(oid));
    } catch {
      const packed = (await this.packed(oid)) ?? (await this.repacked(oid));
      return packed ? parseCommit(oid, packed.data) : this.repo.readCommit(oid);
    }
    return parseCommit(oid, unwrap(inflateSync(deflated)));
  }

  private async packed(oid: string): Promise<PackedObject | undefined> {
    this.packs ??= this.openPacks();
    for (const pack of await this.packs) {
      const offset = pack.find(oid);
      if (offset !== undefined) return pack.read(offset, (base) => this.anyObject(base));
    }
    return undefined;
  }

  /** A REF_DELTA base, which may be loose, packed or only known to isomorphic-git. */
  private async anyObject(oid: string): Promise<PackedObject> {
    const packed = await this.packed(oid);
    if (packed) return packed;
    const deflated = await fsp.readFile(this.pathOf(oid)).catch(() => undefined);
    if (deflated) {
      const wrapped = await inflateObject(deflated);
      return { type: wrapped.subarray(0, wrapped.indexOf(32)).toString(), data: unwrap(wrapped) };
    }
    const { type, object } = await git.readObject({ fs: this.repo.fs, gitdir: this.repo.gitdir, oid, cache: this.repo.cache, format: 'content' });
    return { type, data: Buffer.from(object as Uint8Array) };
  }

  /**
   * Quire never repacks, but `git gc` run by hand moves loose objects into a new pack: an
   * object found nowhere re-reads the pack list once before isomorphic-git has the last say.
   */
  private repacked(oid: string): Promise<PackedObject | undefined> {
    this.packs = this.openPacks();
    return this.packed(oid);
  }

  private async openPacks(): Promise<PackFile[]> {
    const dir = join(this.objects, 'pack');
    const names = await fsp.readdir(dir).catch(() => [] as string[]);
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

const readers = new WeakMap<GitRepo, ObjectReader>();

/** The repo's one reader, so its pack indexes are parsed once, not per request. */
export function objectReaderFor(repo: GitRepo): ObjectReader {
  let reader = readers.get(repo);
  if (!reader) readers.set(repo, (reader = new ObjectReader(repo)));
  return reader;
}

/** Drops the `type size\0` header of a loose object. */
function unwrap(wrapped: Buffer): Buffer {
  return wrapped.subarray(wrapped.indexOf(0) + 1);
}

function parseCommit(oid: string, raw: Buffer): CommitInfo {
  const text = raw.toString('utf8');
  const split = text.indexOf('\n\n');
  const headers = (split < 0 ? text : text.slice(0, split)).split('\n');
  const info: CommitInfo = { oid, tree: '', parents: [], message: split < 0 ? '' : text.slice(split + 2), author: { name: '', email: '', timestamp: 0 } };
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
