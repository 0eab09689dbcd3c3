import { AccountStore } from '../../server/accounts/account-store.js';
import { KeyUsageStore } from '../../server/accounts/key-usage.js';
import { loadConfig, type Config, type ConfigFlags } from '../../server/config.js';

/** What the account commands need: the config (for plans) and the stores in the data folder. */
export function cliContext(flags: ConfigFlags): { config: Config; accounts: AccountStore; usage: KeyUsageStore } {
  const config = loadConfig(process.env, flags);
  return { config, accounts: new AccountStore(config.dataDir), usage: new KeyUsageStore(config.dataDir) };
}

/** Reads all of stdin (for passwords: never on the command line, where `ps` shows it). */
export async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8').replace(/\r?\n$/, '');
}
