import { promises as fsp, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { inflate, inflateSync } from 'node:zlib';
import type { CommitInfo, GitRepo } from '../git/repo.js';

const inflateAsync = promisify(inflate);
const AUTHOR = /^(.*) <(.*)> (\d+) [+-]\d{4}$/;

/**
 * Reads loose objects with node's own zlib and falls back to isomorphic-git for packed
 * ones. isomorphic-git inflates with pako and hashes every object it reads; on the change
 * feed and the export, which read thousands of objects per request, that was most of the
 * time. Like git, this trusts the object store and does not re-hash on read.
 */
export class ObjectReader {
  private readonly objects: string;

  constructor(private readonly repo: GitRepo) {
    this.objects = join(repo.gitdir, 'objects');
  }

  /** Blobs can be large: read and inflated off the event loop. */
  async blob(oid: string): Promise<Uint8Array> {
    const deflated = await fsp.readFile(this.pathOf(oid)).catch(() => undefined);
    return deflated ? unwrap(await inflateAsync(deflated)) : this.repo.readBlob(oid);
  }

  /**
   * Commits are small and read one after another (each names the next), so a blocking
   * read is far cheaper than four thread-pool round trips per object.
   */
  async commit(oid: string): Promise<CommitInfo> {
    let deflated: Buffer | undefined;
    try {
      deflated = readFileSync(this.pathOf(oid));
    } catch {
      return this.repo.readCommit(oid);
    }
    return parseCommit(oid, unwrap(inflateSync(deflated)));
  }

  private pathOf(oid: string): string {
    return join(this.objects, oid.slice(0, 2), oid.slice(2));
  }
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
