import type { TreeEntry } from 'isomorphic-git';

export type { TreeEntry };

/** The mode of a symbolic link: its blob holds the target's path, never content. */
export const SYMLINK_MODE = '120000';

/** Entry names git itself refuses to check out (its verify_path): they would point outside the folder. */
const UNSAFE = /^(?:\.{1,2}|\.git)$/i;

/**
 * A raw git tree object → entries, as isomorphic-git's readTree gives them (modes
 * normalised the same way). Parsed here so trees can be read with node's zlib: opening a
 * 10k-page vault spent most of its time in isomorphic-git's JavaScript inflate and hash.
 * Throws on a malformed tree or an entry name that could escape the vault folder.
 */
export function parseTree(raw: Uint8Array): TreeEntry[] {
  const buf = Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength);
  const entries: TreeEntry[] = [];
  for (let at = 0; at < buf.length;) {
    const space = buf.indexOf(32, at);
    const nul = space < 0 ? -1 : buf.indexOf(0, space);
    if (nul < 0 || nul + 21 > buf.length) throw new Error('malformed git tree');
    const mode = normalMode(buf.toString('latin1', at, space));
    const path = checkEntryName(buf.toString('utf8', space + 1, nul));
    entries.push({
      mode,
      path,
      oid: buf.toString('hex', nul + 1, nul + 21),
      type: mode === '040000' ? 'tree' : mode === '160000' ? 'commit' : 'blob',
    });
    at = nul + 21;
  }
  return entries;
}

/** `name` if a checkout may use it as an entry name; throws otherwise. */
export function checkEntryName(name: string): string {
  if (!name || name.includes('/') || UNSAFE.test(name.replace(/[. ]+$/, '') || name))
    throw new Error(`unsafe git tree entry: ${JSON.stringify(name)}`);
  return name;
}

export function normalMode(mode: string): string {
  if (/^0?4/.test(mode)) return '040000';
  if (mode.startsWith('1006')) return '100644';
  if (mode.startsWith('1007')) return '100755';
  if (mode.startsWith('120')) return SYMLINK_MODE;
  if (mode.startsWith('160')) return '160000';
  throw new Error(`unknown git file mode ${mode}`);
}
