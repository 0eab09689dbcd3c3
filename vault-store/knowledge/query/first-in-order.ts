/**
 * The first `k` of the items offered, in `order`, without sorting them all: a page of 50 out
 * of 100k matches costs one comparison for most of them (with the worst kept so far).
 */
export class FirstInOrder<T> {
  readonly items: T[] = [];

  constructor(
    private readonly k: number,
    private readonly order: (a: T, b: T) => number,
  ) {}

  /** Whether `item` would be kept now: a caller may offer a copy of a scratch item only then. */
  takes(item: T): boolean {
    return this.items.length < this.k || this.order(item, this.items[this.k - 1]) < 0;
  }

  offer(item: T): void {
    const { items, k, order } = this;
    if (!this.takes(item)) return;
    let lo = 0;
    let hi = items.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (order(items[mid], item) <= 0) lo = mid + 1;
      else hi = mid;
    }
    items.splice(lo, 0, item);
    if (items.length > k) items.pop();
  }
}
