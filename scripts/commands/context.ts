import { AccountStore } from '../../server/accounts/account-store.js';
import { KeyUsageStore } from '../../server/accounts/key-usage.js';
import { AgentStore } from '../../server/agents/agent-store.js';
import { loadConfig, type Config, type ConfigFlags } from '../../server/config.js';
import { openSqliteStore } from '../../server/store/sqlite/sqlite-store.js';
import type { Store } from '../../server/store/store.js';

/** What the account commands need: the config (for plans) and the store a running server shares. */
export interface CliContext {
  config: Config;
  store: Store;
  accounts: AccountStore;
  usage: KeyUsageStore;
  agents: AgentStore;
}

/** Runs a command against the data folder's store (created if missing), closing it after. */
export async function withCliContext(flags: ConfigFlags, command: (ctx: CliContext) => Promise<void>): Promise<void> {
  const config = loadConfig(process.env, flags);
  const store = openSqliteStore(config.dataDir);
  try {
    await command({ config, store, accounts: new AccountStore(store), usage: new KeyUsageStore(store), agents: new AgentStore(store) });
  } finally {
    await store.close();
  }
}

/** Reads all of stdin (for passwords: never on the command line, where `ps` shows it). */
export async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks)
    .toString('utf8')
    .replace(/\r?\n$/, '');
}
