import { silentLog, type Log } from '../../vault-store/log.js';
import type { Store } from '../store/store.js';

export interface KeyUsage {
  last_used_at?: string;
  /** Device keys: the last change-log cursor the device acknowledged. */
  cursor?: string;
  cursor_at?: string;
}

/** Only record "last used" this often per key; it is a hint, not an audit log. */
const LAST_USED_EVERY_MS = 60_000;

/** Per-key runtime facts: when each key was last used, and each device's cursor. */
export class KeyUsageStore {
  private readonly lastWrite = new Map<string, number>();
  private readonly inFlight = new Set<Promise<void>>();

  constructor(
    private readonly store: Store,
    private readonly log: Log = silentLog,
    private readonly now: () => Date = () => new Date(),
  ) {}

  async get(keyId: string): Promise<KeyUsage> {
    const [key, cursor] = await Promise.all([this.store.keys.byId(keyId), this.store.deviceCursors.get(keyId)]);
    return { ...(key?.last_used_at ? { last_used_at: key.last_used_at } : {}), ...cursor };
  }

  /** Fire-and-forget; throttled per key. */
  touch(keyId: string): void {
    const now = this.now().getTime();
    if (now - (this.lastWrite.get(keyId) ?? 0) < LAST_USED_EVERY_MS) return;
    this.lastWrite.set(keyId, now);
    const write = this.store.keys
      .touch(keyId, new Date(now).toISOString())
      .catch((err: Error) => this.log.warn({ err: err.message }, 'could not record key use'));
    this.inFlight.add(write);
    void write.finally(() => this.inFlight.delete(write));
  }

  /** Waits for pending "last used" writes (shutdown). */
  async flush(): Promise<void> {
    await Promise.all(this.inFlight);
  }

  async setCursor(keyId: string, cursor: string): Promise<KeyUsage> {
    await this.store.deviceCursors.set(keyId, { cursor, cursor_at: this.now().toISOString() });
    return this.get(keyId);
  }
}
