import type { Logger } from '../log/logger.js';
import type { Store } from './store.js';

const EVERY_MS = 60 * 60_000;
/** Rows stay a day past expiry: no read ever sees them, and nothing races a request at the edge. */
const GRACE_MS = 24 * 60 * 60_000;

/**
 * The store, with expired sessions, links, codes, tokens and sign-in counts deleted once an
 * hour. Only housekeeping: every query already filters on expiry, so correctness never waits
 * for it.
 */
export function withPurge(store: Store, log: Logger, now: () => number = Date.now): Store {
  const timer = setInterval(() => {
    store.purgeExpired(now() - GRACE_MS).catch((err: Error) => log.warn({ err: err.message }, 'could not delete expired rows'));
  }, EVERY_MS);
  timer.unref();
  return {
    ...store,
    close: async () => {
      clearInterval(timer);
      await store.close();
    },
  };
}
