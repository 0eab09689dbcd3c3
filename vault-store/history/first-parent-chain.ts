import { QuireError } from '../errors.js';
import type { ObjectReader } from '../git/object-reader.js';

/**
 * A memo of the branch's first-parent history: a contiguous run of commit ids, oldest
 * first, with each id's position. Commits are immutable, so once a run is known it stays
 * true; new heads extend it at the tip and unknown cursors extend it toward the root.
 * Every change feed page is then a slice, with no object reads to find where it starts.
 */
export class FirstParentChain {
  private oids: string[] = [];
  private readonly position = new Map<string, number>();
  /** Position of oids[0]; positions only grow at the tip, so earlier ones are negative. */
  private base = 0;
  /** oids[0] is the root commit: an id not in the map is not in this history. */
  private complete = false;
  private lock: Promise<unknown> = Promise.resolve();

  constructor(private readonly objects: ObjectReader) {}

  /**
   * Commit ids after `since` up to `head`, oldest first, at most `limit`. Throws
   * CURSOR_UNKNOWN when `since` is not on head's first-parent chain.
   */
  after(since: string, head: string, limit: number): Promise<{ commits: string[]; hasMore: boolean }> {
    return this.serialized(async () => {
      const end = await this.locateHead(head);
      const start = await this.locate(since);
      if (start === undefined || start > end) {
        throw new QuireError('CURSOR_UNKNOWN', `${since} is not a commit of this vault's history; resync from a snapshot`, {
          cursor: since,
        });
      }
      const from = start + 1 - this.base;
      const to = Math.min(end + 1 - this.base, from + limit);
      return { commits: this.oids.slice(from, to), hasMore: to < end + 1 - this.base };
    });
  }

  /** True when `oid` is `head` or one of its first-parent ancestors. */
  contains(oid: string, head: string): Promise<boolean> {
    return this.serialized(async () => {
      const end = await this.locateHead(head);
      const at = await this.locate(oid);
      return at !== undefined && at <= end;
    });
  }

  // Callers interleave (each awaits object reads); the memo must change one step at a time.
  private serialized<T>(task: () => Promise<T>): Promise<T> {
    const run = this.lock.then(task);
    this.lock = run.catch(() => undefined);
    return run;
  }

  /** Makes `head` part of the chain and returns its position. */
  private async locateHead(head: string): Promise<number> {
    const known = this.position.get(head);
    if (known !== undefined) return known;
    if (this.oids.length === 0) {
      // First use: remember only the head; cursors extend the run back as far as they need.
      this.append(head);
      return this.base;
    }
    const newer: string[] = [];
    let oid: string | undefined = head;
    let joinAt: number | undefined;
    while (oid !== undefined) {
      joinAt = this.position.get(oid);
      if (joinAt !== undefined) break;
      newer.push(oid);
      oid = await this.firstParent(oid);
    }
    if (joinAt === undefined) {
      // Walked to the root without meeting the memo: history was rewritten. Start over.
      this.reset(newer.reverse(), true);
    } else {
      // Normally joinAt is the tip; anything after it was dropped by a rewrite.
      for (const dropped of this.oids.splice(joinAt + 1 - this.base)) this.position.delete(dropped);
      for (const added of newer.reverse()) this.append(added);
    }
    return this.position.get(head)!;
  }

  /** Position of `oid`, extending the chain toward the root as far as needed. */
  private async locate(oid: string): Promise<number | undefined> {
    const known = this.position.get(oid);
    if (known !== undefined || this.complete) return known;
    const older: string[] = [];
    let cursor = await this.firstParent(this.oids[0]);
    let found = false;
    while (cursor !== undefined && !found) {
      older.push(cursor);
      found = cursor === oid;
      if (!found) cursor = await this.firstParent(cursor);
    }
    this.prepend(older.reverse(), cursor === undefined);
    return this.position.get(oid);
  }

  private async firstParent(oid: string): Promise<string | undefined> {
    return (await this.objects.commit(oid)).parents[0];
  }

  private reset(oids: string[], complete: boolean): void {
    this.oids = [];
    this.position.clear();
    this.base = 0;
    this.complete = complete;
    for (const oid of oids) this.append(oid);
  }

  private append(oid: string): void {
    this.position.set(oid, this.base + this.oids.length);
    this.oids.push(oid);
  }

  private prepend(older: string[], reachedRoot: boolean): void {
    this.base -= older.length;
    older.forEach((oid, i) => this.position.set(oid, this.base + i));
    this.oids = older.concat(this.oids);
    this.complete = reachedRoot;
  }
}
