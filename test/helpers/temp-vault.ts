import { execFileSync } from 'node:child_process';
import { Vault } from '../../vault-store/vault.js';
import { Pages } from '../../vault-store/pages.js';
import type { Author } from '../../vault-store/vault.js';
import { tempDir } from './temp-dir.js';

export const testAuthor: Author = { name: 'key:test', email: 'test@quire.invalid', trailers: { 'Quire-Key': 'test' } };

/** A real git vault in a temp folder, optionally seeded with pages (path → content). */
export async function tempVault(seed: Record<string, string> = {}) {
  const dir = tempDir('quire-vault-');
  const vault = await Vault.open(dir.path);
  const pages = new Pages(vault);
  for (const [path, content] of Object.entries(seed)) await pages.write(testAuthor, { path, content });
  return { dir: dir.path, vault, pages, cleanup: dir.cleanup };
}

/** One commit writing (or, for null, deleting) each path, as one write of many pages does. */
export function commitFiles(vault: Vault, files: Record<string, string | null>) {
  return vault.exclusive(() =>
    vault.commitChanges(
      testAuthor,
      'Many pages',
      Object.entries(files).map(([path, text]) => ({ path, content: text === null ? null : Buffer.from(text) })),
    ),
  );
}

/** Runs system git in `dir` and returns stdout. */
export function gitIn(dir: string, ...args: string[]): string {
  return execFileSync('git', args, { cwd: dir, encoding: 'utf8' });
}
