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
 * Candidates queued at first, when there are more than 16 times as many: those with the
 * highest bounds. A prefix query at 100k pages has tens of thousands of candidates and
 * reads a few dozen; queueing them all was a tenth of its time. Picking them costs a pass
 * and a heap of this size, more than queueing a few thousand candidates would.
 */
const FIRST = 64;

/**
 * Candidates best first, scoring only as many as the caller consumes. A query has
 * thousands of candidates and wants ten; scoring one means reading its term table from
 * memory no cache holds, which was most of a query's time. Each candidate `i` has a
 * cheap upper bound `bounds[i]` of its score; candidates are scored in bound order, and
 * a scored one is yielded once no unscored bound reaches its score. The order is exactly
 * that of scoring and sorting them all. `score(i)` returns undefined to drop a candidate.
 * Only the FIRST highest bounds (and ties) are queued; the others, all below `floor`, join
 * once the best scored candidate no longer beats every one of them.
 *
 * With a `ceiling` (on the scores of candidates left out of `bounds`) a candidate is yielded
 * only once it beats the ceiling, so the order is still that of all of them; the walk
 * returns false when it cannot go on without them (or `score` returned null: it gives up),
 * true when it yielded everything there was.
 */
export function* bestFirst<T>(
  bounds: Float64Array,
  score: (i: number) => Ranked<T> | undefined | null,
  ceiling = -Infinity,
): Generator<Ranked<T>, boolean> {
  const floor = bounds.length > 16 * FIRST ? highest(bounds, FIRST) : -Infinity;
  // The queues' arrays are shared by the searches of the process, one generator at a time.
  const own = spare.slots.length >= bounds.length && !spareInUse;
  const { slots, keys } = own ? spare : { slots: new Uint32Array(bounds.length), keys: new Float64Array(bounds.length) };
  if (own) spareInUse = true;
  try {
    let order = new BoundQueue(slots, keys, bounds, floor, true);
    let rest = floor > -Infinity;
    const pending = new Heap<T>();
    for (;;) {
      while (order.size > 0 && (pending.size === 0 || order.topBound >= pending.top.score)) {
        const ranked = score(order.pop());
        if (ranked === null) return false;
        if (ranked) pending.push(ranked);
      }
      if (rest && (pending.size === 0 || pending.top.score < floor)) {
        // The first queue is done with: the rest take its array.
        order = new BoundQueue(slots, keys, bounds, floor, false);
        rest = false;
        continue;
      }
      if (pending.size === 0) return ceiling === -Infinity;
      // An unlisted candidate may tie and come first by its key: only a higher score is sure.
      if (pending.top.score <= ceiling) return false;
      yield pending.pop();
    }
  } finally {
    if (own) spareInUse = false;
    else if (bounds.length > spare.slots.length && !spareInUse) spare = { slots, keys };
  }
}

/**
 * A queue's arrays, kept for the next search: at 100k pages a query's candidates fill
 * hundreds of KB, and fresh arrays per query were garbage that brought collections of a
 * large heap into the slowest queries.
 */
let spare = { slots: new Uint32Array(0), keys: new Float64Array(0) };
let spareInUse = false;

/** The `count`-th highest of `values` (count ≤ their number), kept in a min-heap of `count`. */
function highest(values: Float64Array, count: number): number {
  const heap = values.slice(0, count);
  for (let at = (count >> 1) - 1; at >= 0; at--) siftDown(heap, at, heap[at]);
  for (let i = count; i < values.length; i++) if (values[i] > heap[0]) siftDown(heap, 0, values[i]);
  return heap[0];
}

/** Places `value` at `at` of the min-heap `heap` and sinks it to its place. */
function siftDown(heap: Float64Array, at: number, value: number): void {
  for (;;) {
    let child = 2 * at + 1;
    if (child >= heap.length) break;
    if (child + 1 < heap.length && heap[child + 1] < heap[child]) child += 1;
    if (heap[child] >= value) break;
    heap[at] = heap[child];
    at = child;
  }
  heap[at] = value;
}

/**
 * Indices by bound, highest first: those at or `above` `floor`, or those below it. A heap,
 * not a sort: a query over common words has thousands of candidates and reads a few dozen;
 * sorting them all was a third of its time. Each place holds its bound beside its index
 * (`keys`): a phrase of common words pops tens of thousands, and looking bounds up by index
 * missed the caches at every level.
 */
class BoundQueue {
  size = 0;

  /** `heap`, `keys`: room for every candidate, their contents free to overwrite. */
  constructor(
    private readonly heap: Uint32Array,
    private readonly keys: Float64Array,
    bounds: Float64Array,
    floor: number,
    above: boolean,
  ) {
    for (let i = 0; i < bounds.length; i++) {
      if (bounds[i] >= floor !== above) continue;
      this.heap[this.size] = i;
      this.keys[this.size++] = bounds[i];
    }
    for (let at = (this.size >> 1) - 1; at >= 0; at--) this.sink(at, this.heap[at], this.keys[at]);
  }

  get topBound(): number {
    return this.keys[0];
  }

  pop(): number {
    const top = this.heap[0];
    this.size -= 1;
    this.sink(0, this.heap[this.size], this.keys[this.size]);
    return top;
  }

  /** Places index `item` with bound `key` at `at` and sinks it to its place. */
  private sink(at: number, item: number, key: number): void {
    const { heap, keys, size } = this;
    for (;;) {
      let child = 2 * at + 1;
      if (child >= size) break;
      if (child + 1 < size && keys[child + 1] > keys[child]) child += 1;
      if (keys[child] <= key) break;
      heap[at] = heap[child];
      keys[at] = keys[child];
      at = child;
    }
    heap[at] = item;
    keys[at] = key;
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
