import { join } from 'node:path';
import { JsonFile } from './json-file.js';

export interface KeyUsage {
  last_used_at?: string;
  /** Device keys: the last change-log cursor the device acknowledged. */
  cursor?: string;
  cursor_at?: string;
}

/** Only record "last used" this often per key; it is a hint, not an audit log. */
const LAST_USED_EVERY_MS = 60_000;

/**
 * Per-key runtime facts (last use, device cursors) in `<data>/key-usage.json`, apart from
 * accounts.json so frequent server writes never race an operator's key changes.
 */
export class KeyUsageStore {
  private readonly file: JsonFile<Record<string, KeyUsage>>;
  private readonly lastWrite = new Map<string, number>();
  private readonly inFlight = new Set<Promise<void>>();

  constructor(dataDir: string, private readonly now: () => Date = () => new Date()) {
    this.file = new JsonFile(join(dataDir, 'key-usage.json'), () => ({}));
  }

  get(keyId: string): KeyUsage {
    return this.file.read()[keyId] ?? {};
  }

  /** Fire-and-forget; throttled per key. */
  touch(keyId: string): void {
    const now = this.now().getTime();
    if (now - (this.lastWrite.get(keyId) ?? 0) < LAST_USED_EVERY_MS) return;
    this.lastWrite.set(keyId, now);
    const write = this.file.update((doc) => {
      doc[keyId] = { ...doc[keyId], last_used_at: new Date(now).toISOString() };
    }).catch((err: Error) => console.error('quire: could not record key use:', err.message));
    this.inFlight.add(write);
    void write.finally(() => this.inFlight.delete(write));
  }

  /** Waits for pending "last used" writes (shutdown). */
  async flush(): Promise<void> {
    await Promise.all(this.inFlight);
  }

  async setCursor(keyId: string, cursor: string): Promise<KeyUsage> {
    return this.file.update((doc) => {
      doc[keyId] = { ...doc[keyId], cursor, cursor_at: this.now().toISOString() };
      return doc[keyId];
    });
  }
}
