import { EMPTY_TREE } from '../git/tree-store.js';
import { SYMLINK_MODE, checkEntryName, normalMode, type TreeEntry } from '../git/tree-parse.js';
import { sortByPath, type EntryChange } from './tree-diff.js';

const EMPTY = Buffer.alloc(0);
const SLASH = 0x2f;
const DOT = 0x2e;
const CHUNK = 1024;

/** One entry of a raw tree, read in place: byte offsets, nothing decoded. */
class Cursor {
  at = 0;
  mode = 0;
  name = 0;
  nameEnd = 0;
  oid = 0;
  tree = false;
  done = false;

  /** Starts at `at`, an entry boundary. */
  constructor(
    readonly buf: Buffer,
    start: number,
  ) {
    this.at = start;
    this.next();
  }

  /** Moves to the next entry that is not hidden (hidden folders hold no page). */
  next(): void {
    do {
      if (this.at >= this.buf.length) {
        this.done = true;
        return;
      }
      this.mode = this.at;
      const space = this.buf.indexOf(32, this.at);
      this.nameEnd = space < 0 ? -1 : this.buf.indexOf(0, space);
      if (this.nameEnd < 0 || this.nameEnd + 21 > this.buf.length) throw new Error('malformed git tree');
      this.name = space + 1;
      this.oid = this.nameEnd + 1;
      this.at = this.oid + 20;
      // A tree's mode is `40000` (or `040000`): nothing else starts with a 4 or 04.
      this.tree = this.buf[this.mode] === 0x34 || (this.buf[this.mode] === 0x30 && this.buf[this.mode + 1] === 0x34);
    } while (this.buf[this.name] === DOT);
  }

  /** The entry decoded, for the few that changed. */
  entry(): TreeEntry {
    const mode = normalMode(this.buf.toString('latin1', this.mode, this.name - 1));
    const path = checkEntryName(this.buf.toString('utf8', this.name, this.nameEnd));
    const type = mode === '040000' ? 'tree' : mode === '160000' ? 'commit' : 'blob';
    return { mode, path, oid: this.buf.toString('hex', this.oid, this.oid + 20), type };
  }
}

/** git's tree order: names compared bytewise, a tree's as if it ended in `/`. */
function compareNames(a: Cursor, b: Cursor): number {
  const [la, lb] = [a.nameEnd - a.name, b.nameEnd - b.name];
  const n = Math.min(la, lb);
  // Byte loops: names and ids are short, and Buffer#compare with offsets checks its
  // arguments at a cost that showed in the profile.
  for (let i = 0; i < n; i++) {
    const c = a.buf[a.name + i] - b.buf[b.name + i];
    if (c !== 0) return c;
  }
  const ca = la > n ? a.buf[a.name + n] : a.tree ? SLASH : 0;
  const cb = lb > n ? b.buf[b.name + n] : b.tree ? SLASH : 0;
  return ca - cb;
}

/**
 * Where two trees start to differ, as an entry boundary of both: the common byte prefix is
 * found a chunk at a time with native compares, then byte by byte in the chunk that differs
 * (either alone was several times slower), then walked entry by entry with nothing compared.
 */
function firstDifference(left: Buffer, right: Buffer): number {
  const n = Math.min(left.length, right.length);
  let same = 0;
  while (same + CHUNK <= n && left.compare(right, same, same + CHUNK, same, same + CHUNK) === 0) same += CHUNK;
  while (same < n && left[same] === right[same]) same++;
  let at = 0;
  for (;;) {
    const end = left.indexOf(0, at) + 21;
    if (end < 21 || end > same) return at;
    at = end;
  }
}

/** Whether everything after the current entries is the same: the rest of a tree past the change. */
function sameRest(a: Cursor, b: Cursor): boolean {
  return a.buf.length - a.at === b.buf.length - b.at && a.buf.compare(b.buf, b.at, b.buf.length, a.at, a.buf.length) === 0;
}

function sameEntry(a: Cursor, b: Cursor): boolean {
  for (let i = 0; i < 20; i++) if (a.buf[a.oid + i] !== b.buf[b.oid + i]) return false;
  if (a.name - a.mode !== b.name - b.mode) return false;
  for (let i = a.mode, j = b.mode; i < a.name; i++, j++) if (a.buf[i] !== b.buf[j]) return false;
  return true;
}

/**
 * The history build's tree diff: the file changes diffFiles (tree-diff.ts) finds, each with
 * its blob before the change (what history needs for deletes), found by walking two raw trees side by side and comparing entries' 20-byte ids in place,
 * so only entries that changed are decoded and only changed subtrees read. Parsing whole
 * trees into objects (and the garbage it made) was most of a build's time. Raw trees are
 * kept in a small memo: consecutive commits share all but the few subtrees one changed, so
 * each commit reads only its own new trees.
 */
export class RawTreeDiff {
  private readonly kept = new Map<string, Buffer>();

  constructor(
    private readonly read: (oid: string) => Promise<Buffer>,
    private readonly keep = 256,
  ) {}

  async diff(before: string | null, after: string | null): Promise<EntryChange[]> {
    const out: EntryChange[] = [];
    await this.diffAt(before, after, '', out);
    return sortByPath(out);
  }

  private async tree(oid: string | null): Promise<Buffer> {
    if (oid === null || oid === EMPTY_TREE) return EMPTY;
    const hit = this.kept.get(oid);
    if (hit) {
      this.kept.delete(oid);
      this.kept.set(oid, hit);
      return hit;
    }
    const raw = await this.read(oid);
    if (this.kept.size >= this.keep) this.kept.delete(this.kept.keys().next().value!);
    this.kept.set(oid, raw);
    return raw;
  }

  private async diffAt(before: string | null, after: string | null, prefix: string, out: EntryChange[]): Promise<void> {
    if (before === after) return;
    const [left, right] = await Promise.all([this.tree(before), this.tree(after)]);
    // Versions of a tree differ in a few entries: equal bytes before the first and after the
    // last are skipped whole, and only entries between are compared.
    const start = firstDifference(left, right);
    const a = new Cursor(left, start);
    const b = new Cursor(right, start);
    const subtrees: Promise<void>[] = [];
    let changed = false;
    while (!a.done || !b.done) {
      const order = a.done ? 1 : b.done ? -1 : compareNames(a, b);
      if (order === 0 && sameEntry(a, b)) {
        if (changed && sameRest(a, b)) break;
        changed = false;
        a.next();
        b.next();
        continue;
      }
      changed = true;
      const was = order <= 0 ? a.entry() : undefined;
      const now = order >= 0 ? b.entry() : undefined;
      if (order <= 0) a.next();
      if (order >= 0) b.next();
      const path = prefix + (was ?? now)!.path;
      if (was?.type === 'tree' || now?.type === 'tree') subtrees.push(this.diffAt(treeOid(was), treeOid(now), `${path}/`, out));
      const [from, to] = [blobOf(was), blobOf(now)];
      if (from?.oid === to?.oid) continue;
      const before = from?.oid ?? null;
      if (to === undefined) out.push({ path, op: 'delete', hash: null, mode: from!.mode, before });
      else out.push({ path, op: from === undefined ? 'add' : 'modify', hash: to.oid, mode: to.mode, before });
    }
    await Promise.all(subtrees);
  }
}

function treeOid(entry: TreeEntry | undefined): string | null {
  return entry?.type === 'tree' ? entry.oid : null;
}

/** The blob an entry holds as a file: submodules hold none, and a symbolic link is no file here. */
function blobOf(entry: TreeEntry | undefined): TreeEntry | undefined {
  return entry?.type === 'blob' && entry.mode !== SYMLINK_MODE ? entry : undefined;
}
