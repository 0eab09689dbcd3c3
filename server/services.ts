import { AgentStore } from './agents/agent-store.js';
import { AccountStore } from './accounts/account-store.js';
import { KeyUsageStore } from './accounts/key-usage.js';
import type { Config } from './config.js';
import { RateLimiter } from './ratelimit/limiter.js';
import { VaultRegistry } from './vaults/user-vault.js';
import { LoginThrottle } from './web/login-throttle.js';

/** The long-lived parts of a running server, built once from the config and passed down. */
export interface Services {
  config: Config;
  accounts: AccountStore;
  agents: AgentStore;
  usage: KeyUsageStore;
  limiter: RateLimiter;
  /** Failed password sign-ins, shared by the account area and the OAuth sign-in. */
  signins: LoginThrottle;
  vaults: VaultRegistry;
}

export function createServices(config: Config): Services {
  const accounts = new AccountStore(config.dataDir);
  return {
    config,
    accounts,
    agents: new AgentStore(config.dataDir),
    usage: new KeyUsageStore(config.dataDir),
    limiter: new RateLimiter(),
    signins: new LoginThrottle(accounts),
    vaults: new VaultRegistry(config.dataDir, { watch: config.watch, ...(config.embeddings ? { embeddings: config.embeddings } : {}) }),
  };
}

export async function closeServices(services: Services): Promise<void> {
  await services.vaults.close();
  await services.usage.flush();
  services.limiter.shutdown();
  services.signins.shutdown();
}
