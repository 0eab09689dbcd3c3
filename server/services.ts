import { AgentStore } from './agents/agent-store.js';
import { AccountStore } from './accounts/account-store.js';
import { KeyUsageStore } from './accounts/key-usage.js';
import type { Config } from './config.js';
import { createLogger, type Logger } from './log/logger.js';
import { RateLimiter } from './ratelimit/limiter.js';
import { withPurge } from './store/purge.js';
import { openSqliteStore } from './store/sqlite/sqlite-store.js';
import type { Store } from './store/store.js';
import { VaultRegistry } from './vaults/user-vault.js';
import { LoginThrottle } from './auth/login-throttle.js';
import { LiveConnections } from './live/live-connections.js';

/** The long-lived parts of a running server, built once from the config and passed down. */
export interface Services {
  config: Config;
  /** The one logger (pino, JSON lines), at QUIRE_LOG_LEVEL. */
  log: Logger;
  /** Users, keys, agents, sessions, OAuth: everything but the vaults (`<data>/quire.db`). */
  store: Store;
  accounts: AccountStore;
  agents: AgentStore;
  usage: KeyUsageStore;
  limiter: RateLimiter;
  /** Failed password sign-ins, shared by the account area and the OAuth sign-in. */
  signins: LoginThrottle;
  vaults: VaultRegistry;
  /** Open live change connections (event streams, long-polls), capped per user and closed first on shutdown. */
  live: LiveConnections;
}

export function createServices(config: Config, log: Logger = createLogger(config.logLevel)): Services {
  const store = withPurge(openSqliteStore(config.dataDir), log);
  const accounts = new AccountStore(store, undefined, config.passwordCost);
  return {
    config,
    log,
    store,
    accounts,
    agents: new AgentStore(store),
    usage: new KeyUsageStore(store, log),
    limiter: new RateLimiter(),
    signins: new LoginThrottle(accounts, store.signinFailures),
    vaults: new VaultRegistry(config.dataDir, {
      watch: config.watch,
      watcher: config.watchTiming,
      persistDelayMs: config.indexPersistMs,
      lockWaitMs: config.gitLockWaitMs,
      memoryBudgetBytes: config.memoryBudgetBytes,
      idleMs: config.vaultIdleMs,
      log,
      ...(config.embeddings ? { embeddings: config.embeddings } : {}),
    }),
    live: new LiveConnections(config.live.perUser, () => store.changeStamp()),
  };
}

export async function closeServices(services: Services): Promise<void> {
  await services.vaults.close();
  await services.usage.flush();
  await services.store.close();
  services.limiter.shutdown();
}
