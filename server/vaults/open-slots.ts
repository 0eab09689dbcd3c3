/**
 * At most `size` vault opens at once; the others wait their turn, first come first served.
 * An open's transient memory (its index sections read whole) comes on top of the loaded
 * vaults', and on a few cores eight opens at once each took eight times as long anyway.
 */
export class OpenSlots {
  private taken = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(private readonly size: number) {}

  /** Runs `task` once a slot is free, holding the slot until it settles. */
  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.taken < this.size) this.taken += 1;
    else await new Promise<void>((resolve) => this.waiting.push(resolve));
    try {
      return await task();
    } finally {
      // The slot passes straight to the next in line, so a newcomer never overtakes it.
      const next = this.waiting.shift();
      if (next) next();
      else this.taken -= 1;
    }
  }
}
