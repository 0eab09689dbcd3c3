import type { Database } from 'better-sqlite3';
import type { FailureWindow, SigninFailuresStore } from '../store.js';

/**
 * The sign-in throttle's counters. `hit` is one upsert: a live window gains a failure, an
 * ended one starts over, so no two requests (or processes) read the same count. Expiry is
 * the `resets_at > now` in each statement; the purge deletes ended rows later.
 */
export function sqliteSigninFailures(db: Database): SigninFailuresStore {
  const q = {
    hit: db.prepare<{ key: string; now: number; windowMs: number }, FailureWindow>(`
      INSERT INTO signin_failures (key, hits, resets_at) VALUES (@key, 1, @now + @windowMs)
      ON CONFLICT (key) DO UPDATE SET
        hits = CASE WHEN resets_at > @now THEN hits + 1 ELSE 1 END,
        resets_at = CASE WHEN resets_at > @now THEN resets_at ELSE @now + @windowMs END
      RETURNING hits, resets_at`),
    undo: db.prepare('UPDATE signin_failures SET hits = hits - 1 WHERE key = ? AND resets_at > ? AND hits > 0'),
    reset: db.prepare('DELETE FROM signin_failures WHERE key = ?'),
  };
  return {
    hit: async (key, now, windowMs) => q.hit.get({ key, now, windowMs })!,
    undo: async (key, now) => {
      q.undo.run(key, now);
    },
    reset: async (key) => {
      q.reset.run(key);
    },
  };
}
