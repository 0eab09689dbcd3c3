import type { PageLink } from '../../page.js';
import type { LinkQuery } from './link-query.js';
import { ListArena } from './list-arena.js';
import { KIND_BIT, KINDS, TargetPool } from './target-pool.js';

/** Per link: pooled target, line * 2 + kind bit, resolved page id. */
const STRIDE = 3;
export const UNRESOLVED = -1;
// Heap per name links depend on beyond the arena (map entry): measured on generated vaults.
const KEY_BYTES = 35;

/**
 * Each page's links to pages (attachments left out), by page id, in file order: no object
 * per link, all of them in one `ListArena`, each written target once in a `TargetPool`.
 * Also which pages look up each name, so that a page appearing under a name re-resolves
 * only the links that could now point at it.
 */
export class PageLinks {
  private readonly pool = new TargetPool();
  private readonly packed = new ListArena();
  /** Names (lower-cased file names) that links look up, numbered. */
  private readonly keyIds = new Map<string, number>();
  private readonly freeKeys: number[] = [];
  /** key id → pages, one per link that looks that name up. */
  private readonly dependents = new ListArena();

  /** Stores the links of page `id`, unresolved. */
  set(id: number, links: readonly PageLink[]): void {
    const packed: number[] = [];
    const keys = new Map<number, number>();
    for (const link of links) {
      const target = this.pool.acquire(link);
      if (target < 0) continue;
      packed.push(target, link.line * 2 + KIND_BIT[link.kind], UNRESOLVED);
      const key = this.keyId(this.pool.query(target).key);
      keys.set(key, (keys.get(key) ?? 0) + 1);
    }
    // Once per name, not per link: a page may link one name thousands of times.
    for (const [key, times] of keys) this.dependents.insertSorted(key, id, times);
    this.packed.reset(id, packed.length, packed);
  }

  clear(id: number): void {
    const keys = new Set<string>();
    for (let i = 0; i < this.count(id); i++) {
      keys.add(this.query(id, i).key);
      this.pool.release(this.packed.get(id, i * STRIDE));
    }
    for (const key of keys) {
      const keyId = this.keyIds.get(key)!;
      this.dependents.removeAll(keyId, id);
      if (this.dependents.length(keyId) > 0) continue;
      this.dependents.release(keyId);
      this.keyIds.delete(key);
      this.freeKeys.push(keyId);
    }
    this.packed.release(id);
  }

  count(id: number): number {
    return this.packed.length(id) / STRIDE;
  }

  query(id: number, i: number): LinkQuery {
    return this.pool.query(this.packed.get(id, i * STRIDE));
  }

  /** The link as written, without its resolution. */
  link(id: number, i: number): PageLink {
    const lineKind = this.packed.get(id, i * STRIDE + 1);
    return { target: this.pool.text(this.packed.get(id, i * STRIDE)), kind: KINDS[lineKind & 1], line: lineKind >>> 1 };
  }

  kind(id: number, i: number): number {
    return this.packed.get(id, i * STRIDE + 1) & 1;
  }

  /** The page id the link points at, or `UNRESOLVED`. */
  resolved(id: number, i: number): number {
    return this.packed.get(id, i * STRIDE + 2);
  }

  resolve(id: number, i: number, target: number): void {
    this.packed.put(id, i * STRIDE + 2, target);
  }

  /** Pages holding a link that looks up one of these names. */
  dependentsOf(keys: readonly string[]): Set<number> {
    const pages = new Set<number>();
    for (const key of keys) {
      const keyId = this.keyIds.get(key);
      if (keyId === undefined) continue;
      for (let i = 0; i < this.dependents.length(keyId); i++) pages.add(this.dependents.get(keyId, i));
    }
    return pages;
  }

  /** Drops room left for growth: after a build. */
  trim(): void {
    this.packed.trim();
    this.dependents.trim();
  }

  memoryBytes(): number {
    return this.pool.memoryBytes() + this.packed.memoryBytes() + this.dependents.memoryBytes() + this.keyIds.size * KEY_BYTES;
  }

  private keyId(key: string): number {
    let id = this.keyIds.get(key);
    if (id === undefined) this.keyIds.set(key, (id = this.freeKeys.pop() ?? this.keyIds.size));
    return id;
  }
}
