import { join } from 'node:path';
import { Pages } from '../../vault-store/pages.js';
import { Vault } from '../../vault-store/vault.js';

/** A user's vault and the domain services bound to it. */
export interface UserVault {
  user: string;
  dir: string;
  vault: Vault;
  pages: Pages;
}

export function vaultDir(dataDir: string, user: string): string {
  return join(dataDir, 'vaults', user);
}

/**
 * Opens each user's vault once, on first use, and hands the same instance to every
 * request: one Vault means one write queue per repository.
 */
export class VaultRegistry {
  private readonly open = new Map<string, Promise<UserVault>>();

  constructor(private readonly dataDir: string) {}

  get(user: string): Promise<UserVault> {
    let entry = this.open.get(user);
    if (!entry) {
      entry = this.load(user);
      this.open.set(user, entry);
      entry.catch(() => this.open.delete(user));
    }
    return entry;
  }

  private async load(user: string): Promise<UserVault> {
    const dir = vaultDir(this.dataDir, user);
    const vault = await Vault.open(dir);
    return { user, dir, vault, pages: new Pages(vault) };
  }

  /** Waits for queued writes so a shutdown never cuts a commit short. */
  async close(): Promise<void> {
    for (const entry of this.open.values()) {
      const uv = await entry.catch(() => undefined);
      if (uv) await uv.vault.exclusive(async () => undefined);
    }
    this.open.clear();
  }
}
