const INITIAL = 1024;

/** An array grown to hold `needed` slots, by `step` slots or more. */
function grown<T extends Int32Array | Uint32Array>(array: T, needed: number, step = array.length): T {
  if (needed <= array.length) return array;
  const next = new (array.constructor as new (n: number) => T)(Math.max(needed, array.length + step));
  next.set(array);
  return next;
}

/**
 * Lists of int32 for numbered owners (pages, names), all in one growable Int32Array. A
 * typed array per list costs about 250 bytes of headers, more than the few links a page
 * holds. A list that outgrows its block moves to the end (with room to grow again); the
 * space it leaves is reclaimed by compacting once it exceeds what is in use.
 */
export class ListArena {
  private data = new Int32Array(INITIAL);
  private starts = new Uint32Array(INITIAL);
  private sizes = new Uint32Array(INITIAL);
  private capacities = new Uint32Array(INITIAL);
  /** First unused slot of `data`. */
  private end = 0;
  /** Slots held by blocks (capacities), the rest below `end` is garbage. */
  private held = 0;
  /**
   * Set once trimmed: `data` then grows by an eighth, not double. A graph is trimmed once
   * built, and the first edit after it doubled the 100k-page vault's link arena (7.8 → 15.6 MB,
   * held for good, both at once meanwhile). A build still doubles: growing by an eighth from
   * the start left ~30 MB more of freed arrays in the allocator's keeping.
   */
  private trimmed = false;

  length(owner: number): number {
    return owner < this.sizes.length ? this.sizes[owner] : 0;
  }

  get(owner: number, i: number): number {
    return this.data[this.starts[owner] + i];
  }

  put(owner: number, i: number, value: number): void {
    this.data[this.starts[owner] + i] = value;
  }

  /** Gives `owner` a list of `length` zeros (or of these values), dropping what it held. */
  reset(owner: number, length: number, values?: ArrayLike<number>): void {
    this.release(owner);
    if (length > 0) this.place(owner, length, length);
    for (let i = 0; i < length; i++) this.data[this.starts[owner] + i] = values ? values[i] : 0;
  }

  release(owner: number): void {
    if (owner >= this.sizes.length) return;
    this.held -= this.capacities[owner];
    this.sizes[owner] = 0;
    this.capacities[owner] = 0;
  }

  /** Inserts `value`, `times` over, keeping the list sorted. */
  insertSorted(owner: number, value: number, times = 1): void {
    const size = this.length(owner);
    if (size + times > (owner < this.capacities.length ? this.capacities[owner] : 0)) this.move(owner, Math.max(4, (size + times) * 2));
    const start = this.starts[owner];
    let at = start + size;
    while (at > start && this.data[at - 1] > value) at--;
    this.data.copyWithin(at + times, at, start + size);
    this.data.fill(value, at, at + times);
    this.sizes[owner] = size + times;
  }

  /** Removes every occurrence of `value`, keeping the order of the rest. */
  removeAll(owner: number, value: number): void {
    const start = this.starts[owner];
    const stop = start + this.length(owner);
    let kept = start;
    for (let i = start; i < stop; i++) if (this.data[i] !== value) this.data[kept++] = this.data[i];
    if (owner < this.sizes.length) this.sizes[owner] = kept - start;
  }

  memoryBytes(): number {
    return this.data.byteLength + this.starts.byteLength * 3;
  }

  /** Copies the list into a fresh block of `capacity` slots at the end. */
  private move(owner: number, capacity: number): void {
    const size = this.length(owner);
    // Placing may compact the arena, which would move the old block from under us.
    const saved = size > 0 ? this.data.slice(this.starts[owner], this.starts[owner] + size) : undefined;
    this.release(owner);
    this.place(owner, size, capacity);
    if (saved) this.data.set(saved, this.starts[owner]);
  }

  private place(owner: number, size: number, capacity: number): void {
    if (owner >= this.starts.length) {
      this.starts = grown(this.starts, owner + 1);
      this.sizes = grown(this.sizes, owner + 1);
      this.capacities = grown(this.capacities, owner + 1);
    }
    if (this.end + capacity > this.data.length && this.end - this.held > this.held) this.compact();
    this.data = grown(this.data, this.end + capacity, this.trimmed ? this.data.length >> 3 : this.data.length);
    this.starts[owner] = this.end;
    this.sizes[owner] = size;
    this.capacities[owner] = capacity;
    this.end += capacity;
    this.held += capacity;
  }

  /** Drops the room left for growth and the garbage, for a list set that is done growing. */
  trim(): void {
    this.compact(true);
    this.data = this.data.slice(0, this.end);
    this.trimmed = true;
    const owners = this.owners();
    const used = owners.length ? owners.reduce((max, o) => Math.max(max, o), 0) + 1 : 0;
    this.starts = this.starts.slice(0, used);
    this.sizes = this.sizes.slice(0, used);
    this.capacities = this.capacities.slice(0, used);
  }

  private owners(): number[] {
    const owners: number[] = [];
    for (let o = 0; o < this.capacities.length; o++) if (this.capacities[o] > 0) owners.push(o);
    return owners;
  }

  /** Moves every block down over the garbage, in place (blocks stay in address order). */
  private compact(exact = false): void {
    const owners = this.owners().sort((a, b) => this.starts[a] - this.starts[b]);
    let at = 0;
    for (const owner of owners) {
      const start = this.starts[owner];
      this.data.copyWithin(at, start, start + this.sizes[owner]);
      this.starts[owner] = at;
      if (exact) this.capacities[owner] = this.sizes[owner];
      at += this.capacities[owner];
    }
    this.end = at;
    this.held = at;
  }
}
