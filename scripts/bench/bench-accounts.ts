import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { AccountStore } from '../../server/accounts/account-store.js';
import { openSqliteStore } from '../../server/store/sqlite/sqlite-store.js';

/** A plan whose rate limits a bench never reaches (the benches measure the server, not the limiter), with pro's largest file. */
const UNLIMITED = 1_000_000_000;
const BENCH_PLAN = {
  bench: {
    rest: true,
    mcp: true,
    max_file_bytes: 200 * 1024 * 1024,
    limits: { sync: UNLIMITED, read: UNLIMITED, write: UNLIMITED, expensive: UNLIMITED },
  },
};

export interface BenchAccounts {
  /** Write-scope API key per user (a device key when asked). */
  keys: Map<string, string>;
  /** What the server child needs in its environment to know the bench plan. */
  env: Record<string, string>;
}

/**
 * Users on the unlimited bench plan, each with a write key, written straight into the data
 * folder's account store before the server starts (as `quire user add` would, without
 * opening the vaults, so the server's first request is the vault's first open).
 */
export async function benchAccounts(data: string, users: string[], options: { device?: boolean } = {}): Promise<BenchAccounts> {
  mkdirSync(data, { recursive: true });
  const plansFile = join(data, 'bench-plans.json');
  writeFileSync(plansFile, JSON.stringify(BENCH_PLAN));
  const store = openSqliteStore(data);
  const accounts = new AccountStore(store);
  const keys = new Map<string, string>();
  try {
    for (const user of users) {
      await accounts.addUser(user, 'bench');
      keys.set(user, (await accounts.createKey({ user, name: 'bench', scope: 'write', device: options.device })).key);
    }
  } finally {
    await store.close();
  }
  return { keys, env: { QUIRE_PLANS_FILE: plansFile } };
}
