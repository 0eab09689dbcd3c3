/**
 * Page bodies as decoded strings, by git blob id, the least used out past a number of
 * characters: a cache of git objects, not of answers (a blob id names a page's bytes, and a
 * body is a function of them, so an entry is never stale). One cache serves every index of
 * the process, within one cap; an entry answers only the index that read it (`owner`), so
 * nothing rests on two indexes naming the same bytes the same way. Reading a body back from
 * the index folder (a `pread`, its CRC-32, the UTF-8 decoding) was a sixth of a search's
 * CPU, for the ten results a search shows.
 */
export class BodyCache {
  private readonly bodies = new Map<string, { owner: number; body: string; used: boolean }>();
  private chars = 0;

  constructor(private readonly maxChars: number) {}

  get(owner: number, blob: string): string | undefined {
    const entry = this.bodies.get(blob);
    if (entry?.owner !== owner) return undefined;
    // Marked, not moved: moving a key to the end of the map was most of a hit's cost.
    entry.used = true;
    return entry.body;
  }

  /**
   * Keeps `body`, the oldest out while past the cap (checked on every insert), those used
   * since they were last passed going round once more (second chance: about least recently
   * used). An empty body is not worth an entry.
   */
  add(owner: number, blob: string, body: string): string {
    if (body.length === 0 || body.length > this.maxChars) return body;
    this.remove(blob);
    this.bodies.set(blob, { owner, body, used: false });
    this.chars += body.length;
    for (const [oldest, entry] of this.bodies) {
      if (this.chars <= this.maxChars) break;
      this.bodies.delete(oldest);
      if (entry.used) {
        entry.used = false;
        this.bodies.set(oldest, entry);
      } else this.chars -= entry.body.length;
    }
    return body;
  }

  /** Characters held (a character takes one byte in a Latin-1 string, two otherwise). */
  get size(): number {
    return this.chars;
  }

  private remove(blob: string): void {
    const entry = this.bodies.get(blob);
    if (!entry) return;
    this.bodies.delete(blob);
    this.chars -= entry.body.length;
  }
}

/**
 * The process's cache: 8 M characters (8–16 MB), about 3,000 bodies of a generated vault's
 * 2.7 KB. Search-as-you-type asks again for much the same top pages at each key, and the
 * read-path bench's 200 queries show 1,785 distinct pages (4 M characters thrashed there: a
 * cycle longer than the cache misses every time). Fixed, so outside the per-vault memory
 * estimate.
 */
export const bodyCache = new BodyCache(8 << 20);

let owners = 0;
/** A number for each index reading through the cache: an entry names its reader without keeping it alive. */
export function bodyCacheOwner(): number {
  return ++owners;
}
