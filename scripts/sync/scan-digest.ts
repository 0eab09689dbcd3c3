/** A file's last seen size, mtime and hash, and when that was seen (see `racy`). */
export type StatEntry = [size: number, mtimeMs: number, hash: string, seenAtMs: number];

/**
 * An mtime this close to when it was seen may hide a later write within the same clock tick
 * (file systems keep mtimes in 1 ns to 2 s steps): such a file is hashed again next time.
 */
const RACY_MS = 2000;

export function racy(entry: StatEntry): boolean {
  return entry[3] - entry[1] <= RACY_MS;
}

/**
 * An order-free digest of a folder's files as the stat cache knows them (path, size, mtime):
 * an idle run compares the folder's against the one saved with the state instead of reading
 * the state's 10,000 rows. Two sums of differently seeded 32-bit FNV-1a hashes, so the order
 * of the walk does not matter; a change it missed would take a 64-bit collision.
 */
export class ScanDigest {
  private count = 0;
  private a = 0;
  private b = 0;

  add(path: string, size: number, mtimeMs: number): void {
    const key = `${path}\0${size}\0${mtimeMs}`;
    let h1 = 0x811c9dc5;
    let h2 = 0x2f8e3c1b;
    for (let i = 0; i < key.length; i++) {
      const unit = key.charCodeAt(i);
      h1 = Math.imul(h1 ^ unit, 0x01000193);
      h2 = Math.imul(h2 ^ unit, 0x01000193) ^ (h2 >>> 13);
    }
    this.a = (this.a + (h1 >>> 0)) % 0x1_0000_0000;
    this.b = (this.b + (h2 >>> 0)) % 0x1_0000_0000;
    this.count++;
  }

  toString(): string {
    return `${this.count}.${this.a.toString(36)}.${this.b.toString(36)}`;
  }
}

/** The digest of a stat cache, or none while an entry is racy (the next scan reads that file again). */
export function cacheDigest(stat: Map<string, StatEntry>): string | undefined {
  const digest = new ScanDigest();
  for (const [path, entry] of stat) {
    if (racy(entry)) return undefined;
    digest.add(path, entry[0], entry[1]);
  }
  return digest.toString();
}
