import type { TreeEntry } from 'isomorphic-git';

/**
 * Git's tree order: names compared as UTF-8 bytes, a folder as if its name ended in "/".
 * Compared on the strings themselves: a Buffer per name per comparison was most of the
 * cost of writing a large folder's tree (1.3 ms for 1,600 entries).
 */
export function compareTreeEntries(a: TreeEntry, b: TreeEntry): number {
  const p = a.path;
  const q = b.path;
  const common = Math.min(p.length, q.length);
  let i = 0;
  while (i < common && p.charCodeAt(i) === q.charCodeAt(i)) i++;
  // Where they differ, or what follows the shorter: "/" after a folder's name, else nothing.
  const x = i < p.length ? codePointRank(p.charCodeAt(i)) : a.type === 'tree' ? 0x2f : -1;
  const y = i < q.length ? codePointRank(q.charCodeAt(i)) : b.type === 'tree' ? 0x2f : -1;
  return x - y;
}

/** A UTF-16 unit ranked in code point order, which is UTF-8's byte order: surrogates (past U+FFFF) above U+E000–U+FFFF. */
function codePointRank(unit: number): number {
  return unit < 0xd800 ? unit : unit < 0xe000 ? unit + 0x2000 : unit - 0x800;
}

/** The entries in git's order; most come in order already (a tree read, one entry changed), checked in one pass. */
export function sortTree(entries: readonly TreeEntry[]): TreeEntry[] {
  for (let i = 1; i < entries.length; i++) {
    if (compareTreeEntries(entries[i - 1], entries[i]) > 0) return [...entries].sort(compareTreeEntries);
  }
  return [...entries];
}

/**
 * The body of a tree object, written into one buffer; `entries` must be in git's order
 * (`sortTree`). ASCII names and hex ids are copied by hand: a native write per field cost
 * more than the copying itself (0.7 ms for 1,600 entries, 0.1 ms this way).
 */
export function serializeTree(entries: readonly TreeEntry[]): Buffer {
  let size = 0;
  for (const e of entries) size += e.mode.length + Buffer.byteLength(e.path) + 22;
  const body = Buffer.allocUnsafe(size);
  let at = 0;
  for (const { mode, path, oid } of entries) {
    // git writes a folder's mode as 40000.
    for (let i = mode.charCodeAt(0) === 0x30 ? 1 : 0; i < mode.length; i++) body[at++] = mode.charCodeAt(i);
    body[at++] = 0x20;
    at = writeName(body, at, path);
    body[at++] = 0;
    for (let i = 0; i < 40; i += 2) body[at++] = (hexValue(oid.charCodeAt(i)) << 4) | hexValue(oid.charCodeAt(i + 1));
  }
  return body.subarray(0, at);
}

/** The bytes one entry takes in a tree's body as `serializeTree` writes it; its id is the last 20. */
export function treeEntrySize({ mode, path }: TreeEntry): number {
  return (mode.charCodeAt(0) === 0x30 ? mode.length - 1 : mode.length) + Buffer.byteLength(path) + 22;
}

function writeName(body: Buffer, at: number, name: string): number {
  for (let i = 0; i < name.length; i++) {
    const unit = name.charCodeAt(i);
    if (unit >= 0x80) return at - i + body.write(name, at - i, 'utf8');
    body[at++] = unit;
  }
  return at;
}

/** A lower-case hex digit's value (object ids are lower-case hex). */
function hexValue(unit: number): number {
  return unit <= 0x39 ? unit - 0x30 : unit - 0x57;
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
