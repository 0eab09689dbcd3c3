export interface Ranked<T> {
  item: T;
  key: string;
  score: number;
}

/** Higher score first, then key ascending: a total order, so any way of sorting agrees. */
function before<T>(a: Ranked<T>, b: Ranked<T>): boolean {
  return a.score > b.score || (a.score === b.score && a.key < b.key);
}

/**
 * Candidates best first, scoring only as many as the caller consumes. A query has
 * thousands of candidates and wants ten; scoring one means reading its term table from
 * memory no cache holds, which was most of a query's time. Each candidate `i` has a
 * cheap upper bound `bounds[i]` of its score; candidates are scored in bound order, and
 * a scored one is yielded once no unscored bound reaches its score. The order is exactly
 * that of scoring and sorting them all. `score(i)` returns undefined to drop a candidate.
 */
export function* bestFirst<T>(bounds: Float64Array, score: (i: number) => Ranked<T> | undefined): Generator<Ranked<T>> {
  const order = Uint32Array.from(bounds.keys()).sort((a, b) => bounds[b] - bounds[a]);
  const pending = new Heap<T>();
  let next = 0;
  for (;;) {
    while (next < order.length && (pending.size === 0 || bounds[order[next]] >= pending.top.score)) {
      const ranked = score(order[next++]);
      if (ranked) pending.push(ranked);
    }
    if (pending.size === 0) return;
    yield pending.pop();
  }
}

/** Binary heap, best (by `before`) on top. */
class Heap<T> {
  private readonly items: Ranked<T>[] = [];

  get size(): number {
    return this.items.length;
  }

  get top(): Ranked<T> {
    return this.items[0];
  }

  push(item: Ranked<T>): void {
    const { items } = this;
    let at = items.push(item) - 1;
    while (at > 0) {
      const parent = (at - 1) >> 1;
      if (!before(item, items[parent])) break;
      items[at] = items[parent];
      at = parent;
    }
    items[at] = item;
  }

  pop(): Ranked<T> {
    const { items } = this;
    const top = items[0];
    const last = items.pop()!;
    if (items.length === 0) return top;
    let at = 0;
    for (;;) {
      let child = 2 * at + 1;
      if (child >= items.length) break;
      if (child + 1 < items.length && before(items[child + 1], items[child])) child += 1;
      if (!before(items[child], last)) break;
      items[at] = items[child];
      at = child;
    }
    items[at] = last;
    return top;
  }
}
