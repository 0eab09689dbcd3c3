/**
 * The `size` first items offered in the order of `compare` (negative: a before b): a binary
 * heap of at most `size` items with the one sorting last on top, so an item that would not
 * make the cut costs one comparison.
 */
export class BoundedHeap<T> {
  private readonly items: T[] = [];

  constructor(
    private readonly size: number,
    private readonly compare: (a: T, b: T) => number,
  ) {}

  offer(item: T): void {
    const { items } = this;
    if (items.length < this.size) {
      items.push(item);
      this.up(items.length - 1);
    } else if (this.size > 0 && this.compare(item, items[0]) < 0) {
      items[0] = item;
      this.down(0);
    }
  }

  /** The items kept, in no order; the heap is left empty. */
  drain(): T[] {
    return this.items.splice(0);
  }

  private up(i: number): void {
    const { items } = this;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (this.compare(items[parent], items[i]) >= 0) return;
      [items[parent], items[i]] = [items[i], items[parent]];
      i = parent;
    }
  }

  private down(i: number): void {
    const { items } = this;
    for (;;) {
      const [left, right] = [2 * i + 1, 2 * i + 2];
      let last = i;
      if (left < items.length && this.compare(items[left], items[last]) > 0) last = left;
      if (right < items.length && this.compare(items[right], items[last]) > 0) last = right;
      if (last === i) return;
      [items[last], items[i]] = [items[i], items[last]];
      i = last;
    }
  }
}
