import type { PageLink } from '../../page.js';
import { linkQuery, type LinkQuery } from './link-query.js';

/** `PageLink['kind']` as the bit a packed link stores. */
export const KIND_BIT = { wiki: 0, markdown: 1 } as const;
export const KINDS = ['wiki', 'markdown'] as const;

/** Rough heap cost of one pooled target beyond its text: map entry, query object, slots. */
const ENTRY_BYTES = 160;

/**
 * Each distinct link target as written, with the lookup it performs, stored once however
 * many links name it: a popular page is linked thousands of times by the same few
 * spellings. Entries are counted and freed with their last link; ids are reused.
 */
export class TargetPool {
  private readonly ids = [new Map<string, number>(), new Map<string, number>()];
  private readonly texts: string[] = [];
  private readonly kinds: number[] = [];
  private readonly queries: (LinkQuery | undefined)[] = [];
  private readonly refs: number[] = [];
  private readonly free: number[] = [];
  private textBytes = 0;

  /**
   * The id of this link's target, counting one more use, or -1 when it names no page (an
   * attachment, a folder): such links are not held at all.
   */
  acquire(link: PageLink): number {
    const kind = KIND_BIT[link.kind];
    const known = this.ids[kind].get(link.target);
    if (known !== undefined) {
      this.refs[known]++;
      return known;
    }
    const query = linkQuery(link);
    if (!query) return -1;
    const id = this.free.pop() ?? this.texts.length;
    this.ids[kind].set(link.target, id);
    this.texts[id] = link.target;
    this.kinds[id] = kind;
    this.queries[id] = query;
    this.refs[id] = 1;
    this.textBytes += link.target.length * 2;
    return id;
  }

  release(id: number): void {
    if (--this.refs[id] > 0) return;
    this.ids[this.kinds[id]].delete(this.texts[id]);
    this.textBytes -= this.texts[id].length * 2;
    this.texts[id] = '';
    this.queries[id] = undefined;
    this.free.push(id);
  }

  text(id: number): string {
    return this.texts[id];
  }

  query(id: number): LinkQuery {
    return this.queries[id]!;
  }

  memoryBytes(): number {
    return this.textBytes + (this.texts.length - this.free.length) * ENTRY_BYTES;
  }
}
