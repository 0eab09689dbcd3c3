/** The time between two saves is at least this many times the last save's writing took… */
const SAVE_SPACING = 20;
/** …but at most this many times the delay: a full save after a build is no measure of the next. */
const MAX_DELAYS = 10;

/**
 * When the knowledge index is saved next. Armed by the first unsaved commit and not pushed
 * back by later ones: under a steady stream of writes the index is still saved every
 * `delayMs`, not only once they stop. But never sooner after a save than SAVE_SPACING times
 * what that save took (up to MAX_DELAYS delays), so saves keep to a small share of the time:
 * under sustained writes each save's CPU, and its sections' fsyncs that the next commits'
 * fsyncs queue behind, were the writes' p99. The index is derived: a crash costs the next
 * open a catch-up over the commits since the last save, never a write.
 */
export class SaveTimer {
  private timer: NodeJS.Timeout | undefined;
  private last = { ended: 0, ms: 0 };

  constructor(
    /** Longest time from a commit to the save that holds it when saves are cheap; false: none. */
    private readonly delayMs: number | false,
    private readonly save: () => void,
  ) {}

  /** A commit is not saved yet: a save is due within the delay (or the spacing). */
  arm(): void {
    if (this.delayMs === false || this.timer) return;
    const spaced = Math.min(this.last.ended + SAVE_SPACING * this.last.ms - Date.now(), MAX_DELAYS * this.delayMs);
    this.timer = setTimeout(
      () => {
        this.timer = undefined;
        this.save();
      },
      Math.max(this.delayMs, spaced),
    );
    this.timer.unref();
  }

  /** Runs one save's writing, timing it for the spacing of the next. */
  async timed(write: () => Promise<void>): Promise<void> {
    const started = Date.now();
    await write();
    this.last = { ended: Date.now(), ms: Date.now() - started };
  }

  stop(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
  }
}
