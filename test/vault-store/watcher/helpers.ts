import type { CommitEvent, Vault } from '../../../vault-store/vault.js';
import { gitIn } from '../../helpers/temp-vault.js';

/** Polls `check` until it returns a value other than undefined, or fails at the deadline. */
export async function waitFor<T>(what: string, check: () => T | undefined | Promise<T | undefined>, timeoutMs = 5_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** Log lines of a vault's history, newest first: "author|subject". */
export function historyOf(dir: string): string[] {
  return gitIn(dir, 'log', '--format=%an|%s').trim().split('\n');
}

/** The commit events of `vault` from now on, in order. */
export function recordCommits(vault: Vault): CommitEvent[] {
  const events: CommitEvent[] = [];
  vault.onCommit((event) => void events.push(event));
  return events;
}
