import { execFile } from 'node:child_process';
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { vaultDir } from '../../server/vaults/user-vault.js';
import { benchAccounts, type BenchAccounts } from './bench-accounts.js';
import { ok, apiClient } from './http-client.js';
import { copyTree, SCALE_DIR, scaleVault, type ScaleVault } from './scale-vault.js';
import { startQuire } from './server-process.js';

const run = promisify(execFile);

export interface UsersData {
  data: string;
  users: string[];
  accounts: BenchAccounts;
  vault: ScaleVault;
  /** Index build of the template vault plus copying it per user, ms. */
  setupMs: number;
}

/**
 * The vault and its persisted index as the server wrote them, built once per run by the
 * current code (so an index format change never leaves a stale template): every user's
 * first request is then a warm open, like a reopen after eviction, not a first build.
 */
async function indexedTemplate(vault: ScaleVault): Promise<string> {
  const data = join(SCALE_DIR, `users-template-${vault.manifest.paths.length}`);
  rmSync(data, { recursive: true, force: true });
  mkdirSync(join(data, 'vaults'), { recursive: true });
  copyTree(vault.pristine, vaultDir(data, 'template'));
  const { keys, env } = await benchAccounts(data, ['template']);
  const server = await startQuire(data, { ...env, QUIRE_LOG_LEVEL: 'warn' });
  await ok(apiClient(server.url, keys.get('template')!), 'GET', '/vault/search?q=bench');
  await server.stop();
  return data;
}

/** `count` users (u000, u001, …), each with a copy of one `pages`-page vault and its index. */
export async function usersData(count: number, pages: number): Promise<UsersData> {
  const started = performance.now();
  const vault = scaleVault(pages);
  const template = await indexedTemplate(vault);
  // One folder per shape: removing 200 users' copies takes minutes on a busy disk, so a smaller run leaves it alone.
  const data = join(SCALE_DIR, `run-users-${count}x${pages}`);
  rmSync(data, { recursive: true, force: true });
  mkdirSync(join(data, 'vaults'), { recursive: true });
  mkdirSync(join(data, 'index'), { recursive: true });
  const users = Array.from({ length: count }, (_, i) => `u${String(i).padStart(3, '0')}`);
  // Vault folders are linked, not copied (`cp -al`; copying 200 was 15 minutes on a busy
  // disk): a write replaces files (temp file and rename, new objects, lock files renamed),
  // so it leaves the other users' links alone; what the server writes in place (.git/config,
  // the probe note, info/exclude, lock markers) the template already holds unchanged or lacks.
  // Indexes are copied: a save may append to its files.
  const copies = users.flatMap((user) => [
    ['-al', vaultDir(template, 'template'), vaultDir(data, user)],
    ['-a', join(template, 'index', 'template'), join(data, 'index', user)],
  ]);
  // A few copies at a time: the disk, not the CPU, is what they wait for.
  const next = async (): Promise<void> => {
    const copy = copies.shift();
    if (!copy) return;
    await run('cp', copy);
    return next();
  };
  await Promise.all(Array.from({ length: 4 }, next));
  const accounts = await benchAccounts(data, users);
  return { data, users, accounts, vault, setupMs: performance.now() - started };
}
